import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { gitWith, layoutOf, makeProject, modeOf } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { OPENCODE, opencodeIn, opencodeRun, snapshotRepoOf } from '../../support/real-clis/opencode.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';

let install: CliInstall;
let server: FakeModelServer;

beforeAll(async () => {
  install = await installNpmCli(OPENCODE);
  if (install.bin) server = await startFakeModelServer();
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
});
