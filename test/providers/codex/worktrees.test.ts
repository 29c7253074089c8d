import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { listedWorktrees, repoState, sh } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { holdLock } from '../../helpers/locks.js';
import { runCli } from '../../helpers/cli.js';
import {
  age,
  appWorktree,
  codexWorld,
  runCodex,
  threadDatabase,
  threadId,
  verdictOf,
  writerLock,
  type CodexWorld,
} from './fixtures.js';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
/**
 * SQLite's own files beside the thread database, which a read-only open of a WAL database makes (a
 * live Codex has them anyway), and so the mtime of the folder holding them.
 */
const notSqlite = (key: string) => !/state_5\.sqlite-(wal|shm)$/.test(key) && key !== path.join('home', '.codex');

function same(before: Map<string, unknown>, after: Map<string, unknown>) {
  const keys = (map: Map<string, unknown>) => [...map.keys()].filter(notSqlite).sort();
  expect(keys(after)).toEqual(keys(before));
  for (const key of keys(before)) expect(after.get(key), key).toEqual(before.get(key));
}

describe("codex: the app's worktrees, judged with the thread database", () => {
  it('keeps a worktree whose thread has a live writer, however long it has been idle', async () => {
    const w = codexWorld();
    const thread = threadId();
    const worktree = appWorktree(w, 'a1b2', thread);
    threadDatabase(w, [{ id: thread, cwd: worktree, archived: true, updatedAt: seconds(daysAgo(40)) }]);
    const lock = writerLock(w, thread);
    age(w, daysAgo(40));
    await holdLock(lock);
    const before = inventory(w.root);

    const result = await runCodex(w);

    expect(verdictOf(result, worktree)).toBe('kept thread-live');
    expect(result.report.items.find((item) => item.path === worktree)?.detail).toContain(`${lock} is held`);
    same(before, inventory(w.root));
  });

  it('removes an archived thread’s clean worktree at once (younger than idleAfter, older than minAge), and keeps a dirty one unfinished', async () => {
    const w = codexWorld();
    const [clean, dirty, gone] = [threadId(), threadId(), threadId()];
    const cleanTree = appWorktree(w, 'a1b2', clean);
    const dirtyTree = appWorktree(w, 'c3d4', dirty);
    const goneTree = appWorktree(w, 'e5f6', gone);
    put(path.join(dirtyTree, 'notes.md'), 'not committed\n');
    threadDatabase(w, [
      { id: clean, cwd: cleanTree, archived: true, updatedAt: seconds(daysAgo(1)) },
      { id: dirty, cwd: dirtyTree, archived: true, updatedAt: seconds(daysAgo(1)) },
      // `gone` was deleted with `codex delete`: no row, its codex-thread.json remains.
    ]);
    writerLock(w, clean);
    age(w, daysAgo(1));
    const main = repoState(w.repo);

    const result = await runCodex(w);

    expect(verdictOf(result, cleanTree)).toBe('deleted thread-archived');
    expect(verdictOf(result, goneTree)).toBe('deleted thread-gone');
    expect(verdictOf(result, dirtyTree)).toBe('unfinished uncommitted-changes');
    expect(result.report.items.find((item) => item.path === cleanTree)?.detail).toMatch(
      /^Codex thread \S+ \(its owner\) is archived, so the set's rule applies at once/,
    );
    expect(listedWorktrees(w.repo)).toEqual([w.repo, dirtyTree]);
    // The user's repository lost nothing but the two admin entries: no branch, ref or index change.
    expect({ ...repoState(w.repo), worktrees: '' }).toEqual({ ...main, worktrees: '' });
  });

  it('judges a thread not archived by the set’s idleAfter; a worktree nothing names is reported only', async () => {
    const w = codexWorld();
    const [recent, idle] = [threadId(), threadId()];
    const recentTree = appWorktree(w, 'a1b2', recent);
    const idleTree = appWorktree(w, 'c3d4', idle);
    const unbound = appWorktree(w, 'e5f6', null);
    threadDatabase(w, [
      { id: recent, cwd: recentTree, updatedAt: seconds(daysAgo(2)) },
      { id: idle, cwd: idleTree, updatedAt: seconds(daysAgo(20)) },
    ]);
    age(w, daysAgo(20));

    const result = await runCodex(w, { reportOnly: true });

    // The worktree has not been written for 20 days, but its thread was active 2 days ago.
    expect(verdictOf(result, recentTree)).toBe('kept not-idle');
    expect(verdictOf(result, idleTree)).toBe('would-delete idle-clean');
    expect(verdictOf(result, unbound)).toBe('kept thread-unknown');
  });

  it('tests the writer lock again right before the removal: a session that started after the plan keeps its worktree', async () => {
    const w = codexWorld();
    const thread = threadId();
    const worktree = appWorktree(w, 'a1b2', thread);
    threadDatabase(w, [{ id: thread, cwd: worktree, archived: true }]);
    const lock = writerLock(w, thread);
    age(w, daysAgo(3));
    const before = inventory(w.root);

    const result = await runCodex(w, { onPlanned: async () => void (await holdLock(lock)) });

    expect(verdictOf(result, worktree)).toBe('refused thread-live');
    expect(listedWorktrees(w.repo)).toContain(worktree);
    same(before, inventory(w.root));
  });

  it('one judge per worktree: with a thread database the codex provider judges it and the codex set gives way; without one, or disabled, the set judges it', async () => {
    const w = codexWorld();
    const thread = threadId();
    const worktree = appWorktree(w, 'a1b2', thread);
    age(w, daysAgo(20));
    const both = { only: ['codex', 'worktrees'], reportOnly: true };

    const noDatabase = await runCodex(w, { ...both });
    expect(noDatabase.report.items.filter((item) => item.path === worktree)).toEqual([
      expect.objectContaining({ provider: 'worktrees', verdict: 'would-delete', reason: 'idle-clean' }),
    ]);

    threadDatabase(w, [{ id: thread, cwd: worktree, archived: true }]);
    const withDatabase = await runCodex(w, { ...both });
    expect(withDatabase.report.items.filter((item) => item.path === worktree)).toEqual([
      expect.objectContaining({ provider: 'codex', verdict: 'would-delete', reason: 'thread-archived' }),
    ]);
    expect(withDatabase.report.items.every((item) => !item.claimedBy)).toBe(true);

    const disabled = await runCodex(w, { ...both, config: { providers: { codex: { enabled: false } } } });
    expect(disabled.report.items.filter((item) => item.path === worktree)).toEqual([
      expect.objectContaining({ provider: 'worktrees', reason: 'idle-clean' }),
    ]);
    const setOff = await runCodex(w, {
      ...both,
      config: { providers: { worktrees: { sets: [{ name: 'codex', enabled: false }] } } },
    });
    expect(setOff.report.items.filter((item) => item.path === worktree)).toEqual([]);

    // The default config with that home is no overlap.
    const config = await runCli(['config', '--home', w.home], { env: { HOME: w.home } });
    expect(config.stderr).toBe('');
    expect(config.code).toBe(0);
  });

  it('refuses the worktrees, naming the file, when the thread database is no Codex database', async () => {
    const w = codexWorld();
    const thread = threadId();
    const worktree = appWorktree(w, 'a1b2', thread);
    put(path.join(w.codexHome, 'state_5.sqlite'), 'not a database');
    age(w, daysAgo(20));

    const result = await runCodex(w, { reportOnly: true });

    expect(verdictOf(result, worktree)).toBe('refused source-unreadable');
    expect(result.exitCode).toBe(1);
    expect(result.report.providers).toContainEqual(
      expect.objectContaining({ provider: 'codex', root: path.join(w.codexHome, 'state_5.sqlite'), ok: false }),
    );
  });

  it('finds the worktrees and database config.toml moves (git-worktree-root, sqlite_home)', async () => {
    const w = codexWorld();
    const thread = threadId();
    const elsewhere = path.join(w.home, 'codex-worktrees');
    const worktree = path.join(elsewhere, 'a1b2', 'app');
    sh(w.repo, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
    const admin = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    put(path.join(admin, 'codex-thread.json'), JSON.stringify({ version: 1, ownerThreadId: thread }));
    const sqliteHome = path.join(w.home, 'codex-db');
    put(
      path.join(w.codexHome, 'config.toml'),
      `sqlite_home = "${sqliteHome}"\n\n[desktop]\ngit-worktree-root = "${elsewhere}"\n`,
    );
    const moved: CodexWorld = { ...w, codexHome: path.join(w.home, 'codex-db') };
    threadDatabase(moved, [{ id: thread, cwd: worktree, archived: true }]);
    backdate(w.home, daysAgo(3));
    backdate(path.join(w.repo, '.git', 'worktrees'), daysAgo(3));

    const result = await runCodex(w, { reportOnly: true });

    expect(verdictOf(result, worktree)).toBe('would-delete thread-archived');
  });
});
