import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { expectOnly, listedWorktrees, sh } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { holdLock } from '../../helpers/locks.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import {
  appWorktree,
  appWorktreeIn,
  codexSession,
  codexWorld,
  codexWorldAt,
  runCodex,
  threadDatabase,
  threadId,
  verdictOf,
  writerLock,
  type CodexWorld,
} from './fixtures.js';

const isRoot = process.geteuid?.() === 0;
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
/** SQLite's own files beside a database a pass opened read-only (a live Codex has them anyway). */
const sqliteSide = (key: string) => /state_5\.sqlite-(wal|shm)$/.test(key);
/** Nothing changed but SQLite's side files and the folders they are made in. */
function unchanged(before: ReturnType<typeof inventory>, after: ReturnType<typeof inventory>, folders: string[] = []) {
  expectOnly(before, after, { ignore: (key) => sqliteSide(key) || folders.includes(key) });
}
const detailOf = (result: PassResult, folder: string) =>
  result.report.items.find((item) => item.path === folder)?.detail ?? '';

/** A folder a link leads to that is on no disk mounted here. */
const unmounted = (name: string) => path.join(`/nonexistent-disk-${randomBytes(4).toString('hex')}`, name);

describe('codex: a thread row names the worktree by another path (rule 25)', () => {
  /** `~/.codex` is a link to a data disk; Codex writes the real path as a thread's cwd. */
  function linkedCodexHome(): { w: CodexWorld; disk: string } {
    const w = codexWorld();
    const disk = path.join(w.root, 'disk', 'codex');
    mkdirSync(path.dirname(disk), { recursive: true });
    renameSync(w.codexHome, disk);
    symlinkSync(disk, w.codexHome);
    return { w, disk };
  }

  it('keeps the worktree a live thread works in by its real path, and one a thread works below; deletes the one no live thread names', async () => {
    const { w, disk } = linkedCodexHome();
    const [owner, live, below, ended] = [threadId(), threadId(), threadId(), threadId()];
    const [other, nested, dead] = [threadId(), threadId(), threadId()];
    const kept = appWorktree(w, 'a1b2', owner);
    const workedBelow = appWorktree(w, 'c3d4', other);
    const deleted = appWorktree(w, 'e5f6', dead);
    const deletedAdmin = sh(deleted, 'rev-parse', '--absolute-git-dir').trim();
    threadDatabase(w, [
      { id: owner, cwd: kept, archived: true },
      // A second session, live, started in the worktree by the path Codex resolved.
      { id: live, cwd: realpathSync(kept), updatedAt: seconds(daysAgo(40)) },
      { id: other, cwd: workedBelow, archived: true },
      // Its cwd is a folder below the worktree that is gone now; it was active two days ago.
      { id: below, cwd: path.join(realpathSync(workedBelow), 'src', 'gone'), updatedAt: seconds(daysAgo(2)) },
      { id: nested, cwd: path.join(w.repo, 'src'), updatedAt: seconds(daysAgo(2)) },
      { id: dead, cwd: deleted, archived: true },
      { id: ended, cwd: realpathSync(deleted), archived: true },
    ]);
    const lock = writerLock(w, live);
    backdate(w.root, daysAgo(3));
    await holdLock(lock);
    const before = inventory(w.root);

    const result = await runCodex(w);

    expect(verdictOf(result, kept)).toBe('kept thread-live');
    expect(detailOf(result, kept)).toContain(`Codex thread ${live} is live`);
    expect(verdictOf(result, workedBelow)).toBe('kept not-idle');
    expect(detailOf(result, workedBelow)).toContain(`Codex thread ${below} (working there) is not archived`);
    expect(verdictOf(result, deleted)).toBe('deleted thread-archived');
    // git names them by the path they were made through, resolved.
    expect(listedWorktrees(w.repo)).toEqual([w.repo, realpathSync(kept), realpathSync(workedBelow)]);
    const rel = (folder: string) => path.relative(w.root, folder);
    expectOnly(before, inventory(w.root), {
      removed: [rel(path.join(disk, 'worktrees', 'e5f6', 'app')), rel(deletedAdmin)],
      changedDirs: [rel(path.join(disk, 'worktrees', 'e5f6')), rel(path.join(w.repo, '.git', 'worktrees'))],
      ignore: (key) => sqliteSide(key) || key === rel(disk),
    });
  });

  it('a row whose cwd cannot be resolved (a link to a disk not mounted here) counts as working in every worktree', async () => {
    const w = codexWorld();
    const [owner, elsewhere] = [threadId(), threadId()];
    const worktree = appWorktree(w, 'a1b2', owner);
    const project = path.join(w.home, 'projects');
    symlinkSync(unmounted('projects'), project);
    threadDatabase(w, [
      { id: owner, cwd: worktree, archived: true },
      { id: elsewhere, cwd: path.join(project, 'app'), updatedAt: seconds(daysAgo(2)) },
    ]);
    backdate(w.root, daysAgo(3));
    const before = inventory(w.root);

    const result = await runCodex(w);

    expect(verdictOf(result, worktree)).toBe('kept not-idle');
    expect(detailOf(result, worktree)).toContain(
      `Codex thread ${elsewhere} (its cwd ${path.join(project, 'app')} cannot be resolved`,
    );
    unchanged(before, inventory(w.root), ['home/.codex']);
  });
});

describe('codex: a ~/.codex on a disk not mounted here (rule 27)', () => {
  it('is a root that is not ok, never a Codex that is not installed; with a work profile as $CODEX_HOME, it refuses the worktrees of the root they may share', async () => {
    const w = codexWorld();
    const shared = path.join(w.home, 'codex-worktrees');
    const work = path.join(w.home, '.codex-work');
    put(path.join(work, 'config.toml'), `[desktop]\ngit-worktree-root = "${shared}"\n`);
    threadDatabase({ ...w, codexHome: work }, [{ id: threadId(), cwd: w.repo }]);
    const worktree = appWorktreeIn(w, shared, 'a1b2', threadId());
    rmSync(w.codexHome, { recursive: true });
    const disk = unmounted('codex');
    symlinkSync(disk, w.codexHome);
    backdate(w.root, daysAgo(3));
    const before = inventory(w.root);

    const alone = await runCodex(w, { reportOnly: true });
    const asProfile = await runCodex(w, { env: { HOME: w.home, CODEX_HOME: work } });

    for (const result of [alone, asProfile]) {
      expect(result.exitCode).toBe(1);
      expect(result.report.providers.find((entry) => entry.root === w.codexHome)).toMatchObject({
        ok: false,
        error: expect.stringContaining(`${w.codexHome} is a link to ${disk}, which is not there`),
      });
    }
    expect(verdictOf(asProfile, worktree)).toBe('refused source-unreadable');
    unchanged(before, inventory(w.root), ['home/.codex-work']);
  });
});

describe.runIf(isRoot)('codex: every Codex home of the owner is read (rule 27)', () => {
  const [user] = isRoot ? addUsers(1) : [];

  interface Profiles {
    w: CodexWorld;
    /** The work profile's `CODEX_HOME`. */
    work: string;
    /** The worktree root both config.toml name. */
    shared: string;
  }

  /**
   * A user's `~/.codex` and a work profile `~/.codex-work` whose config.toml both set
   * `[desktop] git-worktree-root` to one root; `~/.codex` has its thread database (so the codex
   * provider judges that root), the work profile's threads are in its own.
   */
  function profiles(): Profiles {
    const root = tempDir('aj-codex-homes-');
    chmodSync(root, 0o755);
    const w = codexWorldAt(root, path.join(root, 'home'));
    const shared = path.join(w.home, 'codex-worktrees');
    const work = path.join(w.home, '.codex-work');
    const desktop = `model = "gpt-5"\n\n[desktop]\ngit-worktree-root = "${shared}"\n`;
    put(path.join(w.codexHome, 'config.toml'), desktop);
    put(path.join(work, 'config.toml'), desktop);
    // The user's own environment file: ignored by git, so a clean worktree goes with it.
    put(path.join(w.repo, '.git', 'info', 'exclude'), '.env.local\n');
    return { w, work, shared };
  }

  /** The worktree a work-profile thread owns in the shared root, with its ignored `.env.local`. */
  function workWorktree(p: Profiles, thread: string): string {
    const worktree = appWorktreeIn(p.w, p.shared, 'a1b2', thread);
    put(path.join(worktree, '.env.local'), 'API_KEY=only-here\n');
    return worktree;
  }

  /** Everything the user's, aged three days: past minAge, within idleAfter. */
  function settle(p: Profiles): void {
    giveTo(p.w.home, user as RealUser);
    giveTo(path.join(p.w.root, 'work'), user as RealUser);
    backdate(p.w.root, daysAgo(3));
  }

  const at = (p: Profiles, codexHome: string): CodexWorld => ({ ...p.w, codexHome });

  it('a work profile found in a live Codex process’s CODEX_HOME: its live thread keeps the worktree in the shared root', async () => {
    const p = profiles();
    const thread = threadId();
    threadDatabase(p.w, [{ id: threadId(), cwd: p.w.repo }]);
    const worktree = workWorktree(p, thread);
    threadDatabase(at(p, p.work), [{ id: thread, cwd: worktree, updatedAt: seconds(daysAgo(40)) }]);
    const lock = writerLock(at(p, p.work), thread);
    settle(p);
    await codexSession({ env: { CODEX_HOME: p.work }, lock, user });
    const before = inventory(p.w.root);

    const result = await runCodex(p.w);

    expect(verdictOf(result, worktree)).toBe('kept thread-live');
    expect(detailOf(result, worktree)).toContain(path.join(p.work, 'thread-writer-locks', `${thread}.lock`));
    unchanged(before, inventory(p.w.root), ['home/.codex', 'home/.codex-work']);
  });

  it('a work profile named in providers.codex.homes: its open thread keeps the worktree while it is not idle', async () => {
    const p = profiles();
    const thread = threadId();
    threadDatabase(p.w, [{ id: threadId(), cwd: p.w.repo }]);
    const worktree = workWorktree(p, thread);
    threadDatabase(at(p, p.work), [{ id: thread, cwd: worktree, updatedAt: seconds(daysAgo(2)) }]);
    writerLock(at(p, p.work), thread);
    settle(p);
    const before = inventory(p.w.root);

    const result = await runCodex(p.w, { config: { providers: { codex: { homes: [p.work] } } } });

    expect(verdictOf(result, worktree)).toBe('kept not-idle');
    expect(detailOf(result, worktree)).toContain(`is not archived in ${p.work}`);
    unchanged(before, inventory(p.w.root), ['home/.codex', 'home/.codex-work']);
  });

  it('a live Codex process’s CODEX_SQLITE_HOME moves its home’s thread database: the thread there keeps the worktree', async () => {
    const p = profiles();
    const thread = threadId();
    // The database Codex used before the user moved it, without the thread.
    threadDatabase(p.w, [{ id: threadId(), cwd: p.w.repo }]);
    const worktree = appWorktree(p.w, 'c3d4', thread);
    const sqliteHome = path.join(p.w.home, 'codex-db');
    threadDatabase(at(p, sqliteHome), [{ id: thread, cwd: worktree, updatedAt: seconds(daysAgo(2)) }]);
    settle(p);
    // No CODEX_HOME: a Codex (argv[0] `codex`) of the default home, its database moved.
    await codexSession({ env: { CODEX_SQLITE_HOME: sqliteHome }, user });
    const before = inventory(p.w.root);

    const result = await runCodex(p.w);

    expect(verdictOf(result, worktree)).toBe('kept not-idle');
    unchanged(before, inventory(p.w.root), ['home/.codex', 'home/codex-db']);
  });

  it('the pass’s own CODEX_HOME is a work profile: ~/.codex is read too, and its live thread keeps the worktree', async () => {
    const p = profiles();
    const thread = threadId();
    threadDatabase(at(p, p.work), [{ id: threadId(), cwd: p.w.repo }]);
    const worktree = workWorktree(p, thread);
    threadDatabase(p.w, [{ id: thread, cwd: worktree, updatedAt: seconds(daysAgo(40)) }]);
    const lock = writerLock(p.w, thread);
    settle(p);
    await codexSession({ env: {}, lock, user });
    const before = inventory(p.w.root);

    const result = await runCodex(p.w, { env: { HOME: p.w.home, CODEX_HOME: p.work } });

    expect(verdictOf(result, worktree)).toBe('kept thread-live');
    unchanged(before, inventory(p.w.root), ['home/.codex', 'home/.codex-work']);
  });

  for (const how of ['a live Codex process’s CODEX_HOME', 'providers.codex.homes'])
    it(`a work profile on a disk not mounted here (named by ${how}) refuses the worktrees in the root it may share`, async () => {
      const p = profiles();
      const thread = threadId();
      threadDatabase(p.w, [{ id: threadId(), cwd: p.w.repo }]);
      const worktree = workWorktree(p, thread);
      const disk = unmounted('codex-work');
      rmSync(p.work, { recursive: true });
      symlinkSync(disk, p.work);
      settle(p);
      if (how !== 'providers.codex.homes') await codexSession({ env: { CODEX_HOME: p.work }, user });
      const before = inventory(p.w.root);

      const result = await runCodex(p.w, {
        config: how === 'providers.codex.homes' ? { providers: { codex: { homes: [p.work] } } } : {},
      });

      expect(verdictOf(result, worktree)).toBe('refused source-unreadable');
      expect(detailOf(result, worktree)).toContain(`Codex home ${p.work}`);
      expect(result.exitCode).toBe(1);
      const status = result.report.providers.find((entry) => entry.root === p.work);
      expect(status).toMatchObject({ provider: 'codex', ok: false });
      expect(status?.error).toContain(`${p.work} is a link to ${disk}, which is not there`);
      expect(status?.error).toContain(`may keep worktrees in ${p.shared}`);
      unchanged(before, inventory(p.w.root), ['home/.codex']);
    });

  it('a work profile whose session starts after the plan is found again right before the removal, and keeps the worktree', async () => {
    const p = profiles();
    const thread = threadId();
    threadDatabase(p.w, [{ id: threadId(), cwd: p.w.repo }]);
    const worktree = workWorktree(p, thread);
    threadDatabase(at(p, p.work), [{ id: thread, cwd: worktree, archived: true }]);
    const lock = writerLock(at(p, p.work), thread);
    settle(p);
    const before = inventory(p.w.root);

    const result = await runCodex(p.w, {
      onPlanned: async () => void (await codexSession({ env: { CODEX_HOME: p.work }, lock, user })),
    });

    expect(verdictOf(result, worktree)).toBe('refused thread-live');
    unchanged(before, inventory(p.w.root), ['home/.codex', 'home/.codex-work']);
  });
});
