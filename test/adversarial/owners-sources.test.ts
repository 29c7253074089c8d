import { chmodSync, lchownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { isInside } from '../../src/safety/inside.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { addUsers, giveTo, type RealUser } from '../helpers/users.js';
import { makeKiloDb, makeRepo as makeKiloRepo, projectIdOf } from '../providers/kilo/fixtures.js';
import { addJob, addProject, createOwlDb } from '../providers/owl/owl-db.js';
import { writeStateDb } from '../engines/vscode-storage/fixtures.js';
import { addWorktree, commitFile, makeRepo, sh } from '../helpers/git-fixtures.js';
import { code, KILO, kilo, ROO, roo, storageOf, toolWorktree, watchfire } from './support/owners-layouts.js';
import { type Machine, machine, passOver, plant } from './support/owners-machine.js';

/**
 * Rule 20 for the other places a provider reads: a database, a state or settings file, a folder
 * a tool's record names (an owner repository's `.kilo/worktrees`, a project's worktree admin
 * folder, a repository in `.claude.json`), a custom storage path, a root the config names. Each
 * is read only as the home owner's; a link into another user's files there is named in the report
 * and nothing of that user's changes. Real users, real git, real SQLite.
 */

const isRoot = process.geteuid?.() === 0;
const users: [RealUser, RealUser] = isRoot ? (addUsers(2) as [RealUser, RealUser]) : ([] as never);
const UUID = '5d0f3c2a-1b4e-4f6a-9c8d-7e6f5a4b3c2d';

/** Hands each home to its user, ages the machine, and notes every entry of B's home. */
function settle(m: Machine): ReturnType<typeof inventory> {
  const [a, b] = users;
  giveTo(m.homeA, a);
  giveTo(m.homeB, b);
  giveTo(m.big, a);
  backdate(m.dir, daysAgo(20));
  return inventory(m.homeB);
}

/** A root of the report that is not ok, saying that `what` belongs to B and not to A. */
function expectNamed(report: Report, what: string): void {
  const [a, b] = users;
  const refused = report.providers.filter((root) => !root.ok && root.error?.includes(what));
  expect(refused.length, JSON.stringify(report.providers)).toBeGreaterThan(0);
  for (const root of refused) {
    expect(root.error).toContain(`uid ${b.uid} (${b.name})`);
    expect(root.error).toContain(`not to uid ${a.uid} (${a.name})`);
  }
}

const unchanged = { removed: [], changed: [], added: [] };

describe.runIf(isRoot)("the other places a provider reads, behind a link into another user's files (rule 20)", () => {
  it("kilo: an owner repository's .kilo/worktrees linked to B's folder of half-deleted worktrees", async () => {
    const m = machine();
    const repo = makeKiloRepo(path.join(m.homeA, 'src', 'shop'));
    makeKiloDb(path.join(m.homeA, '.local', 'share', 'kilo', 'kilo.db'), {
      projects: [{ id: projectIdOf(repo), worktree: repo }],
    });
    mkdirSync(path.join(m.homeA, '.local', 'state', 'kilo'), { recursive: true });
    const theirs = put(path.join(m.homeB, 'trash', `.kilo-delete-${UUID}`, 'src', 'only-copy.ts'), 'export {};\n');
    const link = plant(path.join(repo, '.kilo', 'worktrees'), path.join(m.homeB, 'trash'), false);
    const before = settle(m);

    const { report, exitCode } = await passOver(m, 'kilo');

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expect(readFileSync(theirs, 'utf8')).toBe('export {};\n');
    expect(report.items.filter((item) => item.path !== null && isInside(link, item.path))).toEqual([]);
    expectNamed(report, `${link} is a link to ${path.join(m.homeB, 'trash')}`);
    expect(exitCode).toBe(1);

    // The same folder on A's own bigger disk: the leftover is finished as before.
    const own = machine();
    const ownRepo = makeKiloRepo(path.join(own.homeA, 'src', 'shop'));
    makeKiloDb(path.join(own.homeA, '.local', 'share', 'kilo', 'kilo.db'), {
      projects: [{ id: projectIdOf(ownRepo), worktree: ownRepo }],
    });
    put(path.join(ownRepo, '.kilo', 'worktrees', `.kilo-delete-${UUID}`, 'src', 'half.ts'), 'export {};\n');
    plant(path.join(ownRepo, '.kilo', 'worktrees'), path.join(own.big, 'kilo-worktrees'), true);
    settle(own);
    const second = await passOver(own, 'kilo');
    expect(itemAt(second.report, path.join(ownRepo, '.kilo', 'worktrees', `.kilo-delete-${UUID}`))).toMatchObject({
      verdict: 'deleted',
      reason: 'kilo-delete-leftover',
    });
    expect(second.exitCode).toBe(0);
  });

  it("kilo: a database in A's data folder that is a link to B's, and a $KILO_DB that names B's", async () => {
    const m = machine();
    kilo(m.homeA);
    const theirs = makeKiloDb(path.join(m.homeB, 'kilo.db'), { projects: [] });
    const link = plant(path.join(m.homeA, '.local', 'share', 'kilo', 'opencode.db'), theirs, false);
    const before = settle(m);

    const linked = await passOver(m, 'kilo');

    expectNamed(linked.report, `${link} is a link to ${theirs}`);
    for (const item of linked.report.items) expect(item.verdict).not.toBe('deleted');
    expect(linked.exitCode).toBe(1);

    rmSync(link);
    const named = await passOver(m, 'kilo', { env: { HOME: m.homeA, KILO_DB: theirs } });
    expectNamed(named.report, `${theirs} belongs to`);
    for (const item of named.report.items) expect(item.verdict).not.toBe('deleted');
    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
  });

  it("owl: a project repository's worktree admin folder linked to B's, holding an entry that names A's job", async () => {
    const m = machine();
    const data = path.join(m.homeA, '.local', 'share', 'coding-owl');
    mkdirSync(path.join(data, 'worktrees'), { recursive: true });
    const repo = makeRepo(path.join(m.homeA, 'src', 'app'));
    const db = createOwlDb(path.join(data, 'owl.db'));
    addProject(db, 'app', repo);
    addJob(db, { id: 7, state: 'done', branch: 'owl/job-7', worktree: path.join(data, 'worktrees', '7') });
    db.close();
    // B's repository keeps an admin entry whose gitdir B pointed at A's job 7, which is gone.
    const theirRepo = makeRepo(path.join(m.homeB, 'src', 'lib'));
    const scratch = addWorktree(theirRepo, path.join(m.homeB, 'scratch'), 'b/scratch');
    const admin = path.join(theirRepo, '.git', 'worktrees', 'scratch');
    writeFileSync(path.join(admin, 'gitdir'), `${path.join(data, 'worktrees', '7', '.git')}\n`);
    rmSync(scratch, { recursive: true, force: true });
    const link = plant(path.join(repo, '.git', 'worktrees'), path.join(theirRepo, '.git', 'worktrees'), false);
    const before = settle(m);

    const { report, exitCode } = await passOver(m, 'owl');

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expectNamed(report, `${link} is a link to ${path.join(theirRepo, '.git', 'worktrees')}`);
    expect(report.items.filter((item) => item.kind === 'worktree-admin')).toEqual([]);
    expect(exitCode).toBe(1);
  });

  it("worktrees: A's .claude.json linked to B's, naming B's repository and its idle worktree", async () => {
    const m = machine();
    const [worktree] = toolWorktree(m.homeB, 'src/app/.claude/worktrees/feature');
    const repo = path.join(m.homeB, 'src', 'app');
    put(path.join(m.homeB, '.claude.json'), JSON.stringify({ projects: { [repo]: { allowedTools: [] } } }));
    const link = plant(path.join(m.homeA, '.claude.json'), path.join(m.homeB, '.claude.json'), false);
    const before = settle(m);

    const { report, exitCode } = await passOver(m, 'worktrees');

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expect(report.items.some((item) => item.path === worktree)).toBe(false);
    expectNamed(report, `${link} is a link to ${path.join(m.homeB, '.claude.json')}`);
    expect(exitCode).toBe(1);
  });

  it('worktrees: a root outside every home, whose sticky folder holds a link of A’s to B’s worktrees', async () => {
    const m = machine();
    const sticky = path.join(m.dir, 'var-tmp');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const [theirs] = toolWorktree(m.homeB, 'kanban/worktrees/3f2a/shop');
    const link = plant(path.join(sticky, 'kanban'), path.join(m.homeB, 'kanban'), false);
    const before = settle(m);
    const [a] = users;
    lchownSync(link, a.uid, a.gid);
    const config = {
      providers: { worktrees: { sets: [{ name: 'kanban', roots: [path.join(sticky, 'kanban', 'worktrees', '*')] }] } },
    };

    const { report, exitCode } = await passOver(m, 'worktrees', { config });

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expect(report.items.some((item) => item.path?.endsWith(path.join('3f2a', 'shop')))).toBe(false);
    expect(readFileSync(path.join(theirs as string, '.env.local'), 'utf8')).toBe('API_KEY=the-only-copy\n');
    expectNamed(report, `${link} is a link to ${path.join(m.homeB, 'kanban')}`);
    expect(exitCode).toBe(1);

    // A's link to A's own folder: A's worktree is judged and deleted as before.
    const own = machine();
    const ownSticky = path.join(own.dir, 'var-tmp');
    mkdirSync(ownSticky);
    chmodSync(ownSticky, 0o1777);
    const [ours] = toolWorktree(own.homeA, 'kanban/worktrees/3f2a/shop');
    plant(path.join(ownSticky, 'kanban'), path.join(own.homeA, 'kanban'), false);
    settle(own);
    lchownSync(path.join(ownSticky, 'kanban'), a.uid, a.gid);
    const second = await passOver(own, 'worktrees', {
      config: {
        providers: {
          worktrees: { sets: [{ name: 'kanban', roots: [path.join(ownSticky, 'kanban', 'worktrees', '*')] }] },
        },
      },
    });
    expect(itemAt(second.report, path.join(ownSticky, 'kanban', 'worktrees', '3f2a', 'shop'))).toMatchObject({
      verdict: 'deleted',
    });
    expect(ours).toBeDefined();
  });

  it("watchfire: a root the config names in A's home, reached through a link to B's", async () => {
    const m = machine();
    watchfire(m.homeB);
    const link = plant(path.join(m.homeA, 'agents'), path.join(m.homeB, '.watchfire'), false);
    const before = settle(m);

    const { report, exitCode } = await passOver(m, 'watchfire', {
      config: { providers: { watchfire: { root: [link] } } },
    });

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expect(report.items).toEqual([]);
    expectNamed(report, `${link} is a link to ${path.join(m.homeB, '.watchfire')}`);
    expect(exitCode).toBe(1);
  });

  it("cline and roo: A's state database or settings file that is a link to B's", async () => {
    const m = machine();
    roo(m.homeA, storageOf(code(m.homeA), ROO), code(m.homeA), ROO, false);
    const theirDb = writeStateDb(path.join(m.homeB, 'state.vscdb'), { [ROO]: { taskHistory: [] } });
    const theirSettings = put(path.join(m.homeB, 'settings.json'), '{ "roo-cline.customStoragePath": "" }\n');
    const db = plant(path.join(code(m.homeA), 'User', 'globalStorage', 'state.vscdb'), theirDb, false);
    const settings = plant(path.join(code(m.homeA), 'User', 'settings.json'), theirSettings, false);
    const before = settle(m);

    const { report, exitCode } = await passOver(m, 'roo');

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expectNamed(report, `${db} is a link to ${theirDb}`);
    expectNamed(report, `${settings} is a link to ${theirSettings}`);
    // Without its own state database, A's history cannot be read: nothing of A's is deleted either.
    for (const item of report.items) expect(item.verdict).not.toBe('deleted');
    expect(exitCode).toBe(1);
  });

  it("roo: a custom storage path in A's settings that names B's folder leaves A's history unknown", async () => {
    const m = machine();
    const [repo] = roo(m.homeA, storageOf(code(m.homeA), KILO), code(m.homeA), KILO, false);
    const theirs = path.join(m.homeB, 'kilo-tasks');
    put(path.join(theirs, 'tasks', '_index.json'), JSON.stringify({ version: 1, updatedAt: 1, entries: [] }));
    put(path.join(code(m.homeA), 'User', 'settings.json'), JSON.stringify({ 'kilo-code.customStoragePath': theirs }));
    const before = settle(m);

    const { report } = await passOver(m, 'roo');

    expect(diffInventories(before, inventory(m.homeB))).toEqual(unchanged);
    expect(itemAt(report, repo as string)).toMatchObject({ verdict: 'refused', reason: 'custom-path-unmounted' });
    expectNamed(report, `${theirs} belongs to`);

    // The same custom path on A's own bigger disk is read as before: the repository's task is gone.
    const ownTasks = path.join(m.big, 'kilo-tasks');
    put(path.join(ownTasks, 'tasks', '_index.json'), JSON.stringify({ version: 1, updatedAt: 1, entries: [] }));
    put(path.join(code(m.homeA), 'User', 'settings.json'), JSON.stringify({ 'kilo-code.customStoragePath': ownTasks }));
    settle(m);
    const second = await passOver(m, 'roo');
    expect(second.report.providers.filter((root) => !root.ok)).toEqual([]);
    expect(itemAt(second.report, repo as string)).toMatchObject({ verdict: 'deleted' });
  });

  it("git over a worktree in root's folder, reached through A's link, runs as A: A's filter never runs as root", async () => {
    const [a] = users;
    const m = machine();
    const uids = path.join(m.dir, 'filter-uids');
    writeFileSync(uids, '');
    chmodSync(uids, 0o666);
    const repo = makeRepo(path.join(m.homeA, 'src', 'app'));
    sh(repo, 'config', 'filter.spy.clean', `sh -c 'id -u >> ${uids}; cat'`);
    put(path.join(repo, '.gitattributes'), '* filter=spy\n');
    sh(repo, 'add', '.gitattributes');
    sh(repo, 'commit', '-q', '-m', 'attributes');
    const worktree = addWorktree(repo, path.join(m.homeA, '.codex', 'worktrees', 'ab12', 'app'), 'codex/spied');
    commitFile(worktree, 'notes.txt', 'notes\n');
    commitFile(worktree, 'flagged.txt', 'flagged\n');
    sh(worktree, 'update-index', '--assume-unchanged', 'flagged.txt');
    put(path.join(worktree, 'flagged.txt'), 'edited while flagged\n');
    plant(path.join(m.homeA, '.codex'), path.join(m.srv, '.codex'), true);
    settle(m);
    writeFileSync(uids, '');

    const { report } = await passOver(m, 'worktrees', { reportOnly: true });

    const ran = readFileSync(uids, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    expect(ran.length).toBeGreaterThan(0);
    expect(new Set(ran)).toEqual(new Set([String(a.uid)]));
    expect(itemAt(report, worktree)).toMatchObject({ verdict: 'unfinished', reason: 'uncommitted-changes' });
  });
});
