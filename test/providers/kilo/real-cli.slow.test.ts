import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { git, makeRepo, pinOf, refExists, sha1 } from './fixtures.js';
import { installKiloCli, kilo, kiloSandbox, type KiloInstall } from './kilo-cli.js';
import { expectOnlyRemoved, type Scene } from './scene.js';

let install: KiloInstall;
let server: FakeModelServer;

beforeAll(async () => {
  install = await installKiloCli();
  if (install.bin) server = await startFakeModelServer();
}, 320_000);

afterAll(async () => {
  await server?.close();
});

const IDLE = 'KILO_SNAPSHOT_MATERIALIZE_IDLE_MS';

describe('the real Kilo CLI 7.7.9', () => {
  it('makes checkpoint repositories in a repository and in its worktrees; after `kilo worktree remove`, the pass removes exactly those of the removed worktrees', async (ctx) => {
    if (!install.bin) {
      console.warn(`skipping the real Kilo CLI test: ${install.why}`);
      ctx.skip(install.why);
    }
    const bin = install.bin as string;
    const root = tempDir('aj-kilo-cli-');
    const sandbox = kiloSandbox(root);
    mkdirSync(sandbox.env.TMPDIR as string, { recursive: true });
    mkdirSync(path.join(sandbox.env.XDG_CONFIG_HOME as string, 'kilo'), { recursive: true });
    writeFileSync(
      path.join(sandbox.env.XDG_CONFIG_HOME as string, 'kilo', 'kilo.json'),
      JSON.stringify({
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            options: { baseURL: `http://127.0.0.1:${server.port}/v1`, apiKey: 'x' },
            models: { 'fake-model': {} },
          },
        },
        model: 'fake/fake-model',
      }),
    );
    const repo = makeRepo(path.join(root, 'work', 'app'));
    const run = (cwd: string, idleMs: string) =>
      kilo(bin, ['run', '-m', 'fake/fake-model', 'say hi'], { cwd, env: { ...sandbox.env, [IDLE]: idleMs } });
    const worktree = (verb: 'create' | 'remove', name: string) =>
      kilo(bin, ['worktree', verb, name], { cwd: repo, env: sandbox.env });

    await run(repo, '3600000');
    await worktree('create', 'materialized');
    await worktree('create', 'seeded');
    const materialized = path.join(repo, '.kilo', 'worktrees', 'materialized');
    const seeded = path.join(repo, '.kilo', 'worktrees', 'seeded');
    await run(materialized, '0');
    await run(seeded, '3600000');

    const data = path.join(sandbox.home, '.local', 'share', 'kilo');
    const projectId = git(['-C', repo, 'rev-list', '--max-parents=0', 'HEAD']).trim();
    const repoOf = (worktreePath: string) => path.join(data, 'snapshot', projectId, sha1(worktreePath));
    for (const worktreePath of [repo, materialized, seeded])
      expect(existsSync(path.join(repoOf(worktreePath), 'HEAD'))).toBe(true);
    // IDLE_MS=0 made the turn materialize its repository; 3600000 left it borrowing R's objects.
    expect(existsSync(path.join(repoOf(materialized), 'objects', 'info', 'alternates'))).toBe(false);
    expect(existsSync(path.join(repoOf(seeded), 'objects', 'info', 'alternates'))).toBe(true);
    expect(refExists(repo, pinOf(repoOf(seeded)))).toBe(true);
    expect(refExists(repo, pinOf(repoOf(materialized)))).toBe(false);
    expect(
      server.requests.some((request) => request.method === 'POST' && request.url.endsWith('/chat/completions')),
    ).toBe(true);

    await worktree('remove', 'materialized');
    await worktree('remove', 'seeded');
    expect(existsSync(materialized) || existsSync(seeded)).toBe(false);
    // Kilo's own removal leaves both repositories behind.
    expect(existsSync(repoOf(materialized)) && existsSync(repoOf(seeded))).toBe(true);

    const s: Scene = {
      root,
      home: sandbox.home,
      data,
      state: path.join(sandbox.home, '.local', 'state', 'kilo'),
      repo,
      projectId,
      work: tempDir('aj-kilo-cli-run-'),
    };
    // The pass runs as the sandbox's own user: the same XDG folders Kilo used.
    const ownEnv = {
      HOME: sandbox.home,
      XDG_DATA_HOME: sandbox.env.XDG_DATA_HOME,
      XDG_STATE_HOME: sandbox.env.XDG_STATE_HOME,
      KILO_DB: '',
      OPENCODE_DB: '',
    };
    const before = inventory(root);
    const { report, exitCode } = await pass({
      dir: s.work,
      config: { homes: [sandbox.home], minAge: '0s' },
      only: ['kilo'],
      env: ownEnv,
    });

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'kilo', root: data, ok: true }]);
    expect(itemAt(report, repoOf(materialized))).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(itemAt(report, repoOf(seeded))).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(itemAt(report, repoOf(repo))).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    expect(report.items.filter((item) => item.verdict === 'deleted')).toHaveLength(2);
    expect(refExists(repo, pinOf(repoOf(seeded)))).toBe(false);
    expectOnlyRemoved(
      s,
      before,
      inventory(root),
      [repoOf(materialized), repoOf(seeded)],
      [path.join(repo, '.git', pinOf(repoOf(seeded)))],
    );

    // A second pass changes nothing.
    const settled = inventory(root);
    const again = await pass({
      dir: s.work,
      config: { homes: [sandbox.home], minAge: '0s' },
      only: ['kilo'],
      env: ownEnv,
    });
    expect(again.report.totals.deleted).toBe(0);
    expect(diffInventories(settled, inventory(root)).removed).toEqual([]);
  }, 600_000);
});
