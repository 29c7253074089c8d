import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { gitWith, layoutOf, makeProject, modeOf } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import {
  OPENCODE,
  opencodeIn,
  opencodeRun,
  opencodeServe,
  opencodeSession,
  snapshotRepoOf,
} from '../../support/real-clis/opencode.js';
import { perProcessLog } from './opencode-data.js';
import { cmdlineOf, killHard, runToEnd, startRunning, treeOf, waitUntil } from '../../support/real-clis/run.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';

let install: CliInstall;
let server: FakeModelServer;

beforeAll(async () => {
  install = await installNpmCli(OPENCODE);
  if (install.bin)
    server = await startFakeModelServer({
      // A turn that runs a long command, for opencode to be killed in; any other turn says hi.
      reply: (turn) => {
        if (turn.toolResults > 0) return undefined;
        const asked = JSON.stringify(turn.body);
        if (asked.includes('work a while'))
          return { tool: { name: 'bash', input: { command: 'sleep 300', description: 'Wait a while' } } };
        // More than opencode's 2000 lines: it keeps the whole output in tool-output/.
        if (asked.includes('print many lines'))
          return { tool: { name: 'bash', input: { command: 'seq 1 5000', description: 'Print many lines' } } };
        const made = /make the file ([\w.-]+)/.exec(asked)?.[1];
        if (made)
          return { tool: { name: 'bash', input: { command: `echo hello > ${made}`, description: 'Make a file' } } };
        return undefined;
      },
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

  it("leaves tool outputs, the diffs of deleted sessions and opencode.log that it never removes; a pass applies opencode's own retention to them, and opencode goes on", async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-opencode-cli-'));
    const oc = opencodeIn(install.bin as string, sandbox, server.port);
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    const serve = await opencodeServe(oc, repo);
    // A revert writes the session's file diffs; `opencode session delete` drops the session and leaves them.
    const deleted = await opencodeSession(serve, 'make the file one.txt', true);
    const live = await opencodeSession(serve, 'make the file two.txt', true);
    await opencodeSession(serve, 'print many lines', false);
    await serve.stop();
    await runToEnd(oc.bin, ['session', 'delete', deleted], { cwd: repo, env: sandbox.env });

    const diffs = path.join(oc.data, 'storage', 'session_diff');
    const deletedDiff = path.join(diffs, `${deleted}.json`);
    const liveDiff = path.join(diffs, `${live}.json`);
    expect(layoutOf(diffs)).toEqual([`${deleted}.json`, `${live}.json`].sort());
    // The shape test/providers/kilo/opencode-data.ts writes for the cases opencode cannot be made to reach.
    const written = readFileSync(liveDiff, 'utf8');
    expect(JSON.parse(written)).toEqual([
      { file: 'two.txt', patch: expect.stringContaining('\n+hello\n'), additions: 1, deletions: 0, status: 'added' },
    ]);
    expect(written).toBe(JSON.stringify(JSON.parse(written), null, 2));
    const outputs = path.join(oc.data, 'tool-output');
    const [output, ...more] = layoutOf(outputs);
    expect(more).toEqual([]);
    expect(output).toMatch(/^tool_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    const toolOutput = path.join(outputs, output as string);
    expect(readFileSync(toolOutput, 'utf8').split('\n').slice(0, 2)).toEqual(['1', '2']);
    const log = path.join(oc.data, 'log');
    expect(layoutOf(log)).toEqual(['opencode.log']);
    expect(readFileSync(path.join(log, 'opencode.log'), 'utf8')).toMatch(/^timestamp=\S+ level=INFO run=[0-9a-f]{8} /);

    // Past opencode's seven days (a test cannot wait them out); a turn of opencode leaves it all the same.
    backdate(toolOutput, daysAgo(8));
    await opencodeRun(oc, repo);
    expect(existsSync(toolOutput)).toBe(true);
    // 1.18.33 writes no per-process log: these stand in for an older opencode's (opencode-data.ts).
    const older = Array.from({ length: 12 }, (_, k) => perProcessLog(log, new Date(Date.UTC(2025, 5, 1 + k, 9))));
    backdate(log, daysAgo(30));
    for (const file of [deletedDiff, liveDiff]) backdate(file, new Date(Date.now() - 2 * 3_600_000));
    const runPass = () =>
      pass({
        dir: tempDir('aj-opencode-cli-run-'),
        config: { homes: [sandbox.home], minAge: '1h' },
        only: ['kilo'],
        env: {
          HOME: sandbox.home,
          XDG_DATA_HOME: sandbox.env.XDG_DATA_HOME,
          XDG_STATE_HOME: sandbox.env.XDG_STATE_HOME,
          OPENCODE_DB: '',
        },
      });
    // What a live opencode writes while the pass runs is left out of the comparison.
    const ownWrites = [
      path.join(log, 'opencode.log'),
      ...['', '-wal', '-shm'].map((end) => path.join(oc.data, `opencode.db${end}`)),
    ];
    const contents = () => inventory(oc.data, { exclude: [...ownWrites, path.join(oc.data, 'snapshot')] });

    // A live opencode that keeps its sessions in another database: no diff of an unknown session goes.
    const elsewhere = path.join(sandbox.root, 'elsewhere', 'opencode.db');
    mkdirSync(path.dirname(elsewhere));
    const other = await opencodeServe(oc, repo, { OPENCODE_DB: elsewhere });
    const before = contents();
    const first = await runPass();
    const refused = itemAt(first.report, deletedDiff);
    expect(`${refused.verdict} ${refused.reason}`).toBe('refused owner-unknown');
    expect(refused.detail).toContain(`process ${other.pid} (`);
    expect(refused.detail).toContain(`carries OPENCODE_DB=${elsewhere}`);
    for (const file of [toolOutput, ...older.slice(0, 2)]) expect(itemAt(first.report, file).verdict).toBe('deleted');
    // opencode.log is reported with the process that holds it open.
    const reported = first.report.items.find(
      (item) => item.path === null && item.detail.startsWith(`${path.join(log, 'opencode.log')}:`),
    );
    expect(reported).toMatchObject({ verdict: 'kept', reason: 'opencode-log-reported' });
    expect(reported?.detail).toContain(`held by process ${other.pid} (`);
    const gone = diffInventories(before, contents());
    expect(gone.removed.sort()).toEqual(
      [toolOutput, ...older.slice(0, 2)].map((file) => path.relative(oc.data, file)).sort(),
    );
    expect(gone.added).toEqual([]);
    await other.stop();

    // Once no opencode names another database, the diff of the deleted session goes, and only it.
    const again = contents();
    const second = await runPass();
    expect(itemAt(second.report, deletedDiff)).toMatchObject({ verdict: 'deleted', reason: 'opencode-diff-orphaned' });
    expect(second.report.items.some((item) => item.path === liveDiff)).toBe(false);
    expect(second.report.items.find((item) => item.path === null && item.detail.startsWith(`${diffs}:`))).toMatchObject(
      { verdict: 'kept', reason: 'opencode-diff-live' },
    );
    expect(diffInventories(again, contents())).toEqual({
      removed: [path.relative(oc.data, deletedDiff)],
      changed: [path.relative(oc.data, diffs)],
      added: [],
    });
    expect(readFileSync(liveDiff, 'utf8')).toBe(written);

    // opencode lists its sessions as before, and goes on in the one whose diff stays.
    const listed = await runToEnd(oc.bin, ['session', 'list'], { cwd: repo, env: sandbox.env });
    expect(listed).toContain(live);
    expect(listed).not.toContain(deleted);
    await runToEnd(oc.bin, ['run', '--session', live, '-m', 'fake/fake-model', 'say hi again'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 120_000,
    });
  }, 300_000);
});
