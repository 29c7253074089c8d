import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { git, makeKiloDb, makeSnapshot, pinOf, refExists, sha1 } from './fixtures.js';
import { expectOnlyRemoved, runKilo, scene, snapshotOf, type Scene } from './scene.js';

const WRITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'db-writer.mjs');
const writers: ChildProcess[] = [];
afterEach(() => {
  for (const child of writers.splice(0)) child.kill('SIGKILL');
});

/** A real second process that holds the database the given way; resolves once it does. */
function holdDatabase(file: string, mode: 'wal' | 'exclusive'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WRITER, file, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  writers.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`db-writer exited ${code}: ${err}`)));
  });
}

const fileHash = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * A worktree made through Kilo's server API: `<data>/worktree/<project-id>/<name>` on branch
 * `opencode/<name>`, its snapshot repository, then the worktree removed. Only the database
 * knows its owner repository.
 */
function serverWorktree(s: Scene, name: string, seeded = true): { worktree: string; gitdir: string } {
  const worktree = path.join(s.data, 'worktree', s.projectId, name);
  git(['-C', s.repo, 'worktree', 'add', '-q', '-b', `opencode/${name}`, worktree]);
  const gitdir = makeSnapshot(s.data, s.projectId, worktree, seeded ? { seededFrom: s.repo } : {});
  git(['-C', s.repo, 'worktree', 'remove', '--force', worktree]);
  git(['-C', s.repo, 'branch', '-D', `opencode/${name}`]);
  return { worktree, gitdir };
}

function kiloDb(s: Scene, name = 'kilo.db', worktree?: string): string {
  return makeKiloDb(path.join(s.data, name), {
    projects: [{ id: s.projectId, worktree: s.repo, sandboxes: [] }],
    sessions: [
      { projectId: s.projectId, directory: s.repo },
      ...(worktree ? [{ projectId: s.projectId, directory: worktree }] : []),
    ],
  });
}

describe('kilo databases: read-only, fail closed', () => {
  it("finds the owner of a server-made worktree in kilo.db's project row and deletes its repository", async () => {
    const s = scene();
    const { worktree, gitdir } = serverWorktree(s, 'brave-otter');
    const db = kiloDb(s, 'kilo.db', worktree);
    const dbHash = fileHash(db);
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(refExists(s.repo, pinOf(gitdir))).toBe(false);
    expect(fileHash(db)).toBe(dbHash);
    expectOnlyRemoved(s, before, snapshotOf(s), [gitdir], [path.join(s.repo, '.git', pinOf(gitdir))]);
  });

  it('refuses a server-made worktree whose owner no database names, and takes a missing database for no error', async () => {
    const s = scene();
    const { gitdir } = serverWorktree(s, 'lost-owner');
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'kilo', root: s.data, ok: true }]);
    expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'refused', reason: 'owner-unknown' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('reads the database while a Kilo server holds a write transaction open in WAL mode', async () => {
    const s = scene();
    const { worktree, gitdir } = serverWorktree(s, 'busy-server');
    const db = kiloDb(s, 'kilo.db', worktree);
    await holdDatabase(db, 'wal');
    const dbHash = fileHash(db);

    const started = Date.now();
    const { report, exitCode } = await runKilo(s);

    expect(Date.now() - started).toBeLessThan(20_000);
    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'kilo', root: s.data, ok: true }]);
    expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(fileHash(db)).toBe(dbHash);
  });

  it('fails closed for this provider alone when a writer keeps the database locked past the timeout', async () => {
    const s = scene();
    const { worktree, gitdir } = serverWorktree(s, 'locked-out');
    const db = kiloDb(s, 'kilo.db', worktree);
    await holdDatabase(db, 'exclusive');
    const quarantine = path.join(
      s.data,
      'snapshot',
      s.projectId,
      `.${sha1('old')}.cleanup-0b7c6e3a-55d1-4a7e-9d7b-2f1e7d9c0a11`,
    );
    writeFileSync(path.join(makeDir(quarantine), 'HEAD'), 'ref: refs/heads/main\n');

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(1);
    const root = report.providers.find((entry) => entry.provider === 'kilo');
    expect(root).toMatchObject({ ok: false });
    expect(root?.error).toContain(db);
    expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(existsSync(gitdir)).toBe(true);
    // Quarantines were proven dead when they were made: finished all the same.
    expect(itemAt(report, quarantine)).toMatchObject({ kind: 'quarantine', verdict: 'deleted' });
  });

  it('fails closed on a corrupt database: provider not ok, exit 1, nothing deleted', async () => {
    const s = scene();
    const { gitdir } = serverWorktree(s, 'corrupt');
    const managed = path.join(s.repo, '.kilo', 'worktrees', 'also-gone');
    git(['-C', s.repo, 'worktree', 'add', '-q', '-b', 'also-gone', managed]);
    const managedRepo = makeSnapshot(s.data, s.projectId, managed);
    git(['-C', s.repo, 'worktree', 'remove', '--force', managed]);
    writeFileSync(path.join(s.data, 'kilo.db'), 'this is not a database, it was cut short by a full disk'.repeat(100));
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(1);
    expect(report.providers).toHaveLength(1);
    expect(report.providers[0]).toMatchObject({ provider: 'kilo', root: s.data, ok: false });
    expect(report.providers[0]?.error).toMatch(/kilo\.db: cannot be read/);
    for (const repo of [gitdir, managedRepo])
      expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(diffInventories(before, snapshotOf(s)).removed).toEqual([]);
  });

  it('fails closed on a database of an unknown schema', async () => {
    const s = scene();
    const { gitdir } = serverWorktree(s, 'schema');
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(s.data, 'kilo.db'));
    db.exec('CREATE TABLE projects (id text, path text)');
    db.close();

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(1);
    expect(report.providers[0]?.error).toContain('unknown schema');
    expect(itemAt(report, gitdir).verdict).toBe('refused');
    expect(existsSync(gitdir)).toBe(true);
  });

  it('reads kilo-<channel>.db beside kilo.db, and $KILO_DB for the current user', async () => {
    const s = scene();
    const channel = serverWorktree(s, 'from-channel');
    makeKiloDb(path.join(s.data, 'kilo-dev.db'), { projects: [{ id: s.projectId, worktree: s.repo }] });
    const { report } = await runKilo(s);
    expect(itemAt(report, channel.gitdir)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });

    const other = serverWorktree(s, 'from-env');
    const elsewhere = makeKiloDb(path.join(s.root, 'custom', 'my-kilo.db'), {
      projects: [{ id: s.projectId, worktree: s.repo }],
    });
    rmSync(path.join(s.data, 'kilo-dev.db'));
    const foreign = await runKilo(s, { reportOnly: true, env: { KILO_DB: elsewhere } });
    expect(itemAt(foreign.report, other.gitdir)).toMatchObject({ verdict: 'refused', reason: 'owner-unknown' });
    const own = await runKilo(s, { env: { HOME: s.home, KILO_DB: elsewhere } });
    expect(itemAt(own.report, other.gitdir)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
  });
});

function makeDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
