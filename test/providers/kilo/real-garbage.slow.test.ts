import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffInventories, inventory, type Entry } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { gitWith, makeProject } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { OPENCODE, opencodeIn, opencodeRun, snapshotRepoOf } from '../../support/real-clis/opencode.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';
import { sha1 } from './fixtures.js';
import { installKiloCli, kilo, kiloSandbox, type KiloInstall } from './kilo-cli.js';

/**
 * The real opencode and the real Kilo CLI leave a checkpoint repository per work tree; a `git add`
 * killed mid-pack in it leaves `objects/pack/tmp_pack_*` that neither tool ever removes. A pass
 * deletes exactly that file: every other byte of the home (each snapshot tree, object, ref, the
 * database) stays, and the snapshot trees that only the session storage records (no ref holds
 * them) can still be read from the repository.
 */

let opencode: CliInstall;
let kiloCli: KiloInstall;
let server: FakeModelServer;

beforeAll(async () => {
  opencode = await installNpmCli(OPENCODE);
  kiloCli = await installKiloCli();
  if (opencode.bin || kiloCli.bin) server = await startFakeModelServer();
}, 320_000);

afterAll(async () => {
  await server?.close();
});

/** The snapshot trees a session database records (`"snapshot":"<tree>"` in its parts): the only record of them. */
function recordedSnapshots(database: string): string[] {
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT data FROM part').all() as Array<{ data: string }>;
    const trees = rows.flatMap((row) =>
      [...row.data.matchAll(/"snapshot":"([0-9a-f]{40})"/g)].map((m) => m[1] as string),
    );
    return [...new Set(trees)];
  } finally {
    db.close();
  }
}

/** Nothing but the garbage went, and nothing but its folder (and SQLite's sidecars, Kilo's lock folder) changed. */
function expectOnlyGarbageGone(
  root: string,
  before: Map<string, Entry>,
  tmpPack: string,
  aside: (key: string) => boolean = () => false,
): void {
  const diff = diffInventories(before, inventory(root));
  const sidecar = (key: string) => /\.db-(wal|shm)$/.test(key) || aside(key);
  expect(diff.removed).toEqual([path.relative(root, tmpPack)]);
  expect(diff.changed.filter((key) => !sidecar(key))).toEqual([path.relative(root, path.dirname(tmpPack))]);
  expect(diff.added.filter((key) => !sidecar(key))).toEqual([]);
}

describe('git garbage left in the checkpoint repositories of the real CLIs', () => {
  it(`opencode ${OPENCODE.version}: the pass deletes the tmp_pack a killed git left, and every snapshot tree the session recorded stays readable`, async (ctx) => {
    if (!opencode.bin) {
      console.warn(`skipping the real opencode test: ${opencode.why}`);
      ctx.skip(opencode.why);
    }
    const sandbox = cliSandbox(tempDir('aj-opencode-garbage-'));
    const oc = opencodeIn(opencode.bin as string, sandbox, server.port);
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    // Work not committed yet: its snapshot tree is an object of the snapshot repository's own, held by no ref.
    writeFileSync(path.join(repo, 'notes.md'), 'draft, not committed\n');
    await opencodeRun(oc, repo);
    const projectId = gitWith(sandbox.env, ['rev-list', '--max-parents=0', 'HEAD'], repo).trim();
    const snapshot = snapshotRepoOf(oc, projectId, repo);
    const database = path.join(oc.data, 'opencode.db');
    const trees = recordedSnapshots(database);
    expect(trees.length).toBeGreaterThan(0);
    const has = (tree: string) => gitWith(sandbox.env, ['--git-dir', snapshot, 'cat-file', '-t', tree]).trim();
    expect(trees.map(has)).toEqual(trees.map(() => 'tree'));
    // They are the snapshot repository's own objects (the project's repository, which it borrows from, has
    // none of them), and no ref holds them: git's own gc would call them garbage.
    for (const tree of trees) expect(() => gitWith(sandbox.env, ['cat-file', '-e', tree], repo)).toThrow();
    expect(gitWith(sandbox.env, ['--git-dir', snapshot, 'for-each-ref']).trim()).toBe('');

    const killed = await killGitMidPack({ gitDir: snapshot, workTree: repo, env: sandbox.env });
    const before = inventory(sandbox.root);

    const { report, exitCode } = await pass({
      dir: tempDir('aj-opencode-garbage-run-'),
      config: { homes: [sandbox.home], minAge: '0s' },
      only: ['kilo'],
      env: { HOME: sandbox.home, XDG_DATA_HOME: '', XDG_STATE_HOME: '', KILO_DB: '', OPENCODE_DB: '' },
    });

    expect(exitCode).toBe(0);
    expect(itemAt(report, killed.tmpPack)).toMatchObject({
      provider: 'kilo',
      kind: 'git-garbage',
      verdict: 'deleted',
      reason: 'git-temporary',
      bytes: killed.bytes,
    });
    expect(itemAt(report, snapshot)).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    expect(report.totals.deleted).toBe(1);
    expectOnlyGarbageGone(sandbox.root, before, killed.tmpPack);
    expect(trees.map(has)).toEqual(trees.map(() => 'tree'));
    expect(gitWith(sandbox.env, ['--git-dir', snapshot, 'count-objects', '-v'])).toMatch(/^garbage: 0$/m);
  }, 300_000);

  it('Kilo CLI 7.7.9: the pass deletes the tmp_pack a killed git left under Kilo Code’s snapshot lock, and every snapshot stays', async (ctx) => {
    if (!kiloCli.bin) {
      console.warn(`skipping the real Kilo CLI test: ${kiloCli.why}`);
      ctx.skip(kiloCli.why);
    }
    const root = tempDir('aj-kilo-garbage-');
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
    mkdirSync(sandbox.home, { recursive: true });
    writeFileSync(path.join(sandbox.home, '.gitconfig'), '[user]\n\tname = Ana\n\temail = ana@example.test\n');
    const repo = makeProject(sandbox.env, path.join(root, 'work', 'app'));
    writeFileSync(path.join(repo, 'notes.md'), 'draft, not committed\n');
    // Materialized at once (its objects its own), as a Kilo Code left open on the work tree does.
    await kilo(kiloCli.bin as string, ['run', '-m', 'fake/fake-model', 'say hi'], {
      cwd: repo,
      env: { ...sandbox.env, KILO_SNAPSHOT_MATERIALIZE_IDLE_MS: '0' },
    });
    const data = path.join(sandbox.home, '.local', 'share', 'kilo');
    const state = path.join(sandbox.home, '.local', 'state', 'kilo');
    const projectId = gitWith(sandbox.env, ['rev-list', '--max-parents=0', 'HEAD'], repo).trim();
    const snapshot = path.join(data, 'snapshot', projectId, sha1(repo));
    const refs = gitWith(sandbox.env, ['--git-dir', snapshot, 'for-each-ref', '--format=%(refname) %(objectname)']);
    expect(refs).toMatch(/^refs\/kilo\/snapshots\//m);
    const database = path.join(data, 'kilo.db');
    const trees = recordedSnapshots(database);
    expect(trees.length).toBeGreaterThan(0);
    const has = (tree: string) => gitWith(sandbox.env, ['--git-dir', snapshot, 'cat-file', '-t', tree]).trim();
    expect(trees.map(has)).toEqual(trees.map(() => 'tree'));

    const killed = await killGitMidPack({ gitDir: snapshot, workTree: repo, env: sandbox.env });
    const before = inventory(root);
    const lockFolder = (key: string) => {
      const locks = path.relative(root, state);
      return key === locks || key.startsWith(`${locks}${path.sep}`) || locks.startsWith(`${key}${path.sep}`);
    };

    const { report, exitCode } = await pass({
      dir: tempDir('aj-kilo-garbage-run-'),
      config: { homes: [sandbox.home], minAge: '0s' },
      only: ['kilo'],
      env: {
        HOME: sandbox.home,
        XDG_DATA_HOME: sandbox.env.XDG_DATA_HOME,
        XDG_STATE_HOME: sandbox.env.XDG_STATE_HOME,
        KILO_DB: '',
        OPENCODE_DB: '',
      },
    });

    expect(exitCode).toBe(0);
    expect(itemAt(report, killed.tmpPack)).toMatchObject({
      kind: 'git-garbage',
      verdict: 'deleted',
      reason: 'git-temporary',
    });
    expect(itemAt(report, snapshot)).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    expectOnlyGarbageGone(root, before, killed.tmpPack, lockFolder);
    expect(gitWith(sandbox.env, ['--git-dir', snapshot, 'for-each-ref', '--format=%(refname) %(objectname)'])).toBe(
      refs,
    );
    expect(trees.map(has)).toEqual(trees.map(() => 'tree'));
  }, 600_000);
});
