import { existsSync, lstatSync, mkdirSync, renameSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { expectOnly, listedWorktrees, repoState, sqliteCompanion } from '../../helpers/git-fixtures.js';
import { ownHomeEnv } from './env.js';
import { addJob, addProject, addRun, createOwlDb } from './owl-db.js';
import { jobWorktree, owlHome, type OwlHome } from './scenario.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real daemon stand-in: a unix socket that accepts connections. */
async function listenAt(socket: string): Promise<void> {
  mkdirSync(path.dirname(socket), { recursive: true });
  const server = net.createServer((connection) => connection.end());
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
}

/** One home with an active job (run open) and a review job whose last run ended 10 days ago. */
function activeAndReview(root: string): OwlHome {
  const owl = owlHome(root);
  const db = createOwlDb(owl.db);
  addProject(db, 'app', owl.repo);
  for (const id of [1, 2, 3]) jobWorktree(owl, id);
  addJob(db, { id: 1, state: 'active', worktree: owl.worktree(1), branch: 'owl/job-1' });
  addRun(db, { jobId: 1, started: daysAgo(1) });
  addJob(db, { id: 2, state: 'review', worktree: owl.worktree(2), branch: 'owl/job-2' });
  addRun(db, { jobId: 2, started: daysAgo(10.2), ended: daysAgo(10) });
  // Active although its last run ended: a daemon that died between runs.
  addJob(db, { id: 3, state: 'active', worktree: owl.worktree(3), branch: 'owl/job-3' });
  addRun(db, { jobId: 3, started: daysAgo(2.1), ended: daysAgo(2), outcome: 'interrupted' });
  db.close();
  backdate(root, daysAgo(3));
  return owl;
}

const config = (owl: OwlHome) => ({ homes: [owl.home], minAge: '1h' });

describe('owl: daemon, settings and schema', () => {
  it('keeps an active job while owld.sock accepts connections, and reports it once the daemon is killed', async () => {
    const dir = tempDir();
    const owl = activeAndReview(path.join(dir, 'world'));
    const socket = path.join(owl.state, 'owld.sock');
    // A stand-in daemon in its own process, killed the way a crash kills it: its socket file stays.
    const daemon = spawnLiving(process.execPath, [
      '-e',
      `require('node:net').createServer((c) => c.end()).listen(${JSON.stringify(socket)})`,
    ]);
    await waitFor(() => existsSync(socket));
    const live = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });
    expect(itemAt(live.report, owl.worktree(1))).toMatchObject({ verdict: 'kept', reason: 'job-open' });
    expect(itemAt(live.report, owl.worktree(1)).detail).toContain(socket);

    daemon.kill('SIGKILL');
    await waitFor(() => daemon.exitCode !== null || daemon.signalCode !== null);
    expect(lstatSync(socket).isSocket()).toBe(true);
    const dead = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });
    expect(itemAt(dead.report, owl.worktree(1))).toMatchObject({
      verdict: 'unfinished',
      reason: 'active-without-daemon',
    });
    expect(itemAt(dead.report, owl.worktree(1)).detail).toContain('run 1 was left open');
    expect(itemAt(live.report, owl.worktree(3))).toMatchObject({ verdict: 'kept', reason: 'job-open' });
    expect(itemAt(dead.report, owl.worktree(3))).toMatchObject({
      verdict: 'unfinished',
      reason: 'active-without-daemon',
    });
    expect(itemAt(dead.report, owl.worktree(3)).detail).toContain('no run of it is open');
    // The review job is reported, not removed, whatever the daemon does.
    expect(itemAt(dead.report, owl.worktree(2))).toMatchObject({ verdict: 'unfinished', reason: 'review-overdue' });
    expect(listedWorktrees(owl.repo)).toEqual(expect.arrayContaining([owl.worktree(1), owl.worktree(2)]));
  });

  it('finds the daemon at $XDG_RUNTIME_DIR/coding-owl/owld.sock for the current user', async () => {
    const dir = tempDir();
    const owl = activeAndReview(path.join(dir, 'world'));
    const runtime = path.join(dir, 'run-user');
    await listenAt(path.join(runtime, 'coding-owl', 'owld.sock'));
    const { report } = await pass({
      dir,
      config: config(owl),
      only: ['owl'],
      env: ownHomeEnv(owl.home, { XDG_RUNTIME_DIR: runtime }),
    });
    expect(itemAt(report, owl.worktree(1))).toMatchObject({ verdict: 'kept', reason: 'job-open' });
  });

  it("reads another user's home at its usual places, whatever this process's XDG variables say", async () => {
    const dir = tempDir();
    const owl = activeAndReview(path.join(dir, 'world'));
    await listenAt(path.join(owl.state, 'owld.sock'));
    const elsewhere = path.join(dir, 'someone-else');
    const env = {
      HOME: elsewhere,
      XDG_DATA_HOME: path.join(elsewhere, 'data'),
      XDG_STATE_HOME: path.join(elsewhere, 'state'),
      XDG_RUNTIME_DIR: path.join(elsewhere, 'run'),
    };
    const { report } = await pass({ dir, config: config(owl), only: ['owl'], env });
    expect(report.providers).toEqual([{ provider: 'owl', root: owl.data, ok: true }]);
    expect(itemAt(report, owl.worktree(1))).toMatchObject({ verdict: 'kept', reason: 'job-open' });
    expect(itemAt(report, owl.worktree(2))).toMatchObject({ verdict: 'unfinished', reason: 'review-overdue' });
  });

  it("lets Owl's own garbageCollection.reviewAfter win over providers.owl.reviewAfter", async () => {
    const dir = tempDir();
    const owl = activeAndReview(path.join(dir, 'world'));
    const byDefault = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });
    expect(itemAt(byDefault.report, owl.worktree(2))).toMatchObject({
      verdict: 'unfinished',
      reason: 'review-overdue',
    });
    expect(itemAt(byDefault.report, owl.worktree(2)).detail).toContain('providers.owl.reviewAfter 7d');

    put(path.join(owl.configDir, 'config.yaml'), 'garbageCollection:\n  interval: 1h\n  reviewAfter: 336h\n');
    const owlSays = await pass({
      dir,
      config: { ...config(owl), providers: { owl: { reviewAfter: '1d' } } },
      only: ['owl'],
      env: ownHomeEnv(owl.home),
    });
    expect(itemAt(owlSays.report, owl.worktree(2))).toMatchObject({ verdict: 'kept', reason: 'job-open' });
    expect(itemAt(owlSays.report, owl.worktree(2)).detail).toContain('garbageCollection.reviewAfter 336h');
  });

  it('fails closed on an owl.db of a newer schema without the columns the rule reads, and still finishes quarantines', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    const db = createOwlDb(owl.db, 2); // jobs without worktree and branch columns
    db.pragma('user_version = 17');
    addProject(db, 'app', owl.repo);
    db.prepare(
      `INSERT INTO jobs (id, source, source_ref, project, prompt, state, created) VALUES (1, 'manual', 'r1', 'app', 'p', 'done', '2026-01-01T00:00:00Z')`,
    ).run();
    db.close();
    jobWorktree(owl, 1);
    const leftover = path.join(owl.data, 'worktrees', '.7.cleanup-0b6f8f5e-3c1d-4c62-9d7e-2f1b8e0a9c44');
    put(path.join(leftover, 'file.txt'), 'half deleted\n');
    backdate(world, daysAgo(3));
    const before = inventory(world);
    const gitBefore = repoState(owl.repo);

    const { report, exitCode } = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });

    expect(exitCode).toBe(1);
    expect(report.providers).toHaveLength(1);
    expect(report.providers[0]).toMatchObject({ provider: 'owl', root: owl.data, ok: false });
    expect(report.providers[0]?.error).toMatch(
      /owl\.db: unknown schema \(user_version 17, newest known 16\): column jobs\.worktree missing/,
    );
    expect(itemAt(report, owl.worktree(1))).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(report, leftover)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    const rel = (p: string) => path.relative(world, p);
    expectOnly(before, inventory(world), {
      removed: [rel(leftover)],
      changedDirs: [rel(path.join(owl.data, 'worktrees')), rel(owl.data)],
      ignore: sqliteCompanion,
    });
    expect(repoState(owl.repo)).toEqual(gitBefore);
  });

  it('fails closed when owl.db is missing or not a database at all', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    jobWorktree(owl, 1);
    backdate(world, daysAgo(3));
    const missing = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });
    expect(missing.report.providers[0]).toMatchObject({ ok: false });
    expect(missing.report.providers[0]?.error).toContain('owl.db is missing');
    put(owl.db, 'this is not sqlite, it is long enough to have a header that is wrong\n'.repeat(20));
    const garbage = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });
    expect(garbage.report.providers[0]?.error).toMatch(/owl\.db/);
    expect(itemAt(garbage.report, owl.worktree(1))).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(listedWorktrees(owl.repo)).toContain(owl.worktree(1));
  });

  it('refuses a done job whose project repository is on a missing volume, and loses nothing', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    const db = createOwlDb(owl.db);
    addProject(db, 'app', owl.repo);
    jobWorktree(owl, 1);
    put(path.join(owl.worktree(1), 'uncommitted.txt'), 'work that only lives here\n');
    addJob(db, { id: 1, state: 'done', worktree: owl.worktree(1), branch: 'owl/job-1' });
    db.close();
    backdate(world, daysAgo(3));
    renameSync(path.join(owl.home, 'src'), path.join(world, 'unmounted-src'));
    const before = inventory(world);

    const { report, exitCode } = await pass({ dir, config: config(owl), only: ['owl'], env: ownHomeEnv(owl.home) });

    expect(exitCode).toBe(0);
    expect(itemAt(report, owl.worktree(1))).toMatchObject({ verdict: 'refused', reason: 'owner-unavailable' });
    expectOnly(before, inventory(world), { changedDirs: [path.relative(world, owl.data)], ignore: sqliteCompanion });
  });

  it('skips a home where Owl is not installed: no root, no item, no error', async () => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    mkdirSync(home);
    const { report, exitCode } = await pass({ dir, config: { homes: [home] }, only: ['owl'], env: ownHomeEnv(home) });
    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([]);
    expect(report.items).toEqual([]);
  });
});
