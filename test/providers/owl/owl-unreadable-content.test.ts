import { chmodSync, chownSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { tempDir } from '../../helpers/temp.js';
import { UNREAD_WARNINGS, warningGit } from '../../helpers/unread-warnings.js';
import { addWorktree, makeRepo } from '../../helpers/git-fixtures.js';
import { ownHomeEnv } from './env.js';
import { addJob, addProject, createOwlDb } from './owl-db.js';
import { owlHome } from './scenario.js';

/**
 * Rule 22 for Owl: the worktree of a done job, over which git warns that it could not open, read
 * or stat part of it, is `refused unreadable-content` and keeps every byte.
 */

const USER = 4352;
const FOREIGN = 999;
const isRoot = process.geteuid?.() === 0;

function chownTree(target: string, uid: number): void {
  chownSync(target, uid, uid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) chownTree(path.join(target, name), uid);
}

/** An Owl home with a done job per name, each in a project repository of its own. */
function owlWorld(names: readonly string[]) {
  const dir = tempDir('aj-owl-unread-');
  chmodSync(dir, 0o755);
  const owl = owlHome(path.join(dir, 'world'));
  const db = createOwlDb(owl.db);
  const worktrees = new Map<string, string>();
  for (const [k, name] of [...names, 'control'].entries()) {
    // Three digits: no job's folder name begins another's.
    const id = 101 + k;
    const repo = makeRepo(path.join(owl.home, 'src', name));
    addProject(db, name, repo);
    const worktree = addWorktree(repo, owl.worktree(id), `owl/job-${id}`);
    addJob(db, { id, state: 'done', project: name, branch: `owl/job-${id}`, worktree });
    worktrees.set(name, worktree);
  }
  db.close();
  return { dir, owl, worktrees, settle: () => backdate(path.join(dir, 'world'), daysAgo(3)) };
}

/** The job worktree's folder as every git run over it names it. */
const folderOf = (w: ReturnType<typeof owlWorld>, name: string): string =>
  `/worktrees/${path.basename(w.worktrees.get(name) as string)}`;

const run = (w: ReturnType<typeof owlWorld>) =>
  pass({ dir: w.dir, config: { homes: [w.owl.home], minAge: '1h' }, only: ['owl'], env: ownHomeEnv(w.owl.home) });

function expectKept(before: Map<string, never>, folder: string): void {
  expect(diffInventories(before, inventory(folder))).toEqual({ removed: [], changed: [], added: [] });
}

describe.runIf(isRoot)('owl: git, run as the owner, meets a folder of another uid in a done job', () => {
  it('refuses the worktree (unreadable-content) instead of calling it clean, and keeps every byte', async () => {
    const w = owlWorld(['volume']);
    chownTree(w.dir, USER);
    chownSync(w.dir, 0, 0);
    const volume = path.join(w.worktrees.get('volume') as string, 'pgdata');
    put(path.join(volume, 'base', '1', 'data'), 'rows no one pushed\n');
    chownTree(volume, FOREIGN);
    chmodSync(volume, 0o700);
    w.settle();
    const folder = w.worktrees.get('volume') as string;
    const before = inventory(folder);

    const { report } = await run(w);

    expect(itemAt(report, folder)).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
    expect(itemAt(report, folder).detail).toMatch(/could not open directory 'pgdata\/': Permission denied/);
    expectKept(before as Map<string, never>, folder);
    expect(itemAt(report, w.worktrees.get('control') as string)).toMatchObject({ verdict: 'deleted' });
  });
});

describe('owl: a git that exits 0 but says it could not read part of a job worktree', () => {
  it('refuses each such worktree (unreadable-content), whatever the warning, and keeps every byte', async () => {
    const names = UNREAD_WARNINGS.map((_, k) => `victim-${String(k).padStart(2, '0')}`);
    const w = owlWorld(names);
    w.settle();
    const before = new Map(names.map((name) => [name, inventory(w.worktrees.get(name) as string)]));
    const bin = warningGit(w.dir, new Map(names.map((name, k) => [folderOf(w, name), UNREAD_WARNINGS[k] as string])));

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => run(w));
    for (const name of names) {
      const folder = w.worktrees.get(name) as string;
      expect(itemAt(report, folder), name).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
      expectKept(before.get(name) as Map<string, never>, folder);
    }
    const control = w.worktrees.get('control') as string;
    expect(itemAt(report, control)).toMatchObject({ verdict: 'deleted', reason: 'job-done' });
    expect(existsSync(control)).toBe(false);
  });
});
