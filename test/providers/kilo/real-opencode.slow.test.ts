import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { gitWith, layoutOf, makeProject, modeOf } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { OPENCODE, opencodeIn, opencodeRun, snapshotRepoOf } from '../../support/real-clis/opencode.js';
import { cmdlineOf, killHard, runToEnd, startRunning, treeOf, waitUntil } from '../../support/real-clis/run.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';

let install: CliInstall;
let server: FakeModelServer;

beforeAll(async () => {
  install = await installNpmCli(OPENCODE);
  if (install.bin)
    server = await startFakeModelServer({
      // A turn that runs a long command, for opencode to be killed in; any other turn says hi.
      reply: (turn) =>
        JSON.stringify(turn.body).includes('work a while') && turn.toolResults === 0
          ? { tool: { name: 'bash', input: { command: 'sleep 300', description: 'Wait a while' } } }
          : undefined,
    });
}, 320_000);

afterAll(async () => {
  await server?.close();
});

describe(`the real opencode ${OPENCODE.version}`, () => {
  it('keeps a snapshot repository per work tree, and a git killed mid-pack in it leaves tmp_pack_* and index.lock that opencode never removes', async (ctx) => {
    if (!install.bin) {
      console.warn(`skipping the real opencode test: ${install.why}`);
      ctx.skip(install.why);
    }
    const sandbox = cliSandbox(tempDir('aj-opencode-cli-'));
    const oc = opencodeIn(install.bin as string, sandbox, server.port);
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    const rootCommit = gitWith(sandbox.env, ['rev-list', '--max-parents=0', 'HEAD'], repo).trim();

    await opencodeRun(oc, repo);
    expect(server.requests.some((r) => r.api === 'openai-chat')).toBe(true);

    // The project id is the root commit, cached (without a newline) in the repository's git folder.
    expect(readFileSync(path.join(repo, '.git', 'opencode'), 'utf8')).toBe(rootCommit);
    expect(layoutOf(path.join(oc.data, 'snapshot'), 2)).toEqual([
      `${rootCommit}/`,
      `${rootCommit}/${path.basename(snapshotRepoOf(oc, rootCommit, repo))}/`,
    ]);
    const snapshot = snapshotRepoOf(oc, rootCommit, repo);
    expect(layoutOf(snapshot)).toEqual([
      'HEAD',
      'branches/',
      'config',
      'description',
      'hooks/',
      'index',
      'info/',
      'objects/',
      'refs/',
    ]);
    const config = (key: string) =>
      gitWith(sandbox.env, ['config', '--file', path.join(snapshot, 'config'), key]).trim();
    expect(config('core.worktree')).toBe(repo);
    expect(config('core.bare')).toBe('false');
    // Every object is borrowed from the project: the snapshot repository has no object of its own.
    expect(readFileSync(path.join(snapshot, 'objects', 'info', 'alternates'), 'utf8')).toBe(
      `${path.join(repo, '.git', 'objects')}\n`,
    );
    expect(layoutOf(path.join(snapshot, 'objects'), 2)).toEqual(['info/', 'info/alternates', 'pack/']);
    expect(layoutOf(path.join(oc.data))).toEqual(
      expect.arrayContaining(['log/', 'opencode.db', 'repos/', 'snapshot/']),
    );

    const killed = await killGitMidPack({ gitDir: snapshot, workTree: repo, env: sandbox.env });
    expect(path.basename(killed.tmpPack)).toMatch(/^tmp_pack_[A-Za-z0-9]{6}$/);
    expect(path.dirname(killed.tmpPack)).toBe(path.join(snapshot, 'objects', 'pack'));
    expect(modeOf(killed.tmpPack)).toBe('444');
    expect(killed.indexLock).toBe(path.join(snapshot, 'index.lock'));
    expect(statSync(killed.indexLock as string).size).toBe(0);
    const counted = gitWith(sandbox.env, ['--git-dir', snapshot, 'count-objects', '-v']);
    expect(counted).toMatch(/^garbage: 1$/m);
    expect(Number(/^size-garbage: (\d+)$/m.exec(counted)?.[1])).toBeGreaterThanOrEqual(1024);

    // opencode's next turns remove neither the garbage nor the lock (its log then shows snapshots failing,
    // in words that change between runs, so the files are what is checked).
    const sizeBefore = statSync(killed.tmpPack).size;
    await opencodeRun(oc, repo);
    expect(statSync(killed.tmpPack).size).toBe(sizeBefore);
    expect(existsSync(killed.indexLock as string)).toBe(true);
  }, 300_000);

  it('killed mid-turn, leaves its database’s write-ahead log; a pass checkpoints it, and opencode started again lists and continues its sessions', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-opencode-cli-'));
    const oc = opencodeIn(install.bin as string, sandbox, server.port);
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    await opencodeRun(oc, repo);
    const db = path.join(oc.data, 'opencode.db');
    // opencode ends without closing its database: even a turn that ran to its end leaves the log
    // (a last close of SQLite's would have checkpointed and removed it).
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);

    const turn = startRunning(oc.bin, ['run', '-m', 'fake/fake-model', 'work a while'], {
      cwd: repo,
      env: sandbox.env,
    });
    const sleeper = await waitUntil(
      'opencode to run the command',
      () => treeOf(turn.pid as number).find((pid) => cmdlineOf(pid) === 'sleep 300'),
      { timeoutMs: 60_000, context: turn.output },
    );
    await killHard(turn);
    process.kill(sleeper, 'SIGKILL');
    const walBytes = statSync(`${db}-wal`).size;
    expect(walBytes).toBeGreaterThan(0);
    const sessions = () => runToEnd(oc.bin, ['session', 'list'], { cwd: repo, env: sandbox.env });
    const listed = await sessions();

    const result = await pass({
      dir: tempDir('aj-opencode-cli-run-'),
      config: { homes: [sandbox.home], minAge: '0s', reclaim: { walMinBytes: '1B' } },
      only: ['kilo'],
      env: { HOME: sandbox.home, XDG_DATA_HOME: sandbox.env.XDG_DATA_HOME, XDG_STATE_HOME: sandbox.env.XDG_STATE_HOME },
    });
    const item = itemAt(result.report, `${db}-wal`);
    expect(`${item.verdict} ${item.reason}`).toBe('deleted wal-left-behind');
    expect(item.provider).toBe('kilo');
    expect(existsSync(`${db}-wal`)).toBe(false);
    const check = new Database(db, { readonly: true, fileMustExist: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    // Both sessions are there, and opencode continues the one it was killed in.
    expect(await sessions()).toBe(listed);
    expect(listed.match(/^ses_/gm)?.length).toBe(2);
    await runToEnd(oc.bin, ['run', '--continue', '-m', 'fake/fake-model', 'say hi again'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 120_000,
    });
  }, 300_000);
});
