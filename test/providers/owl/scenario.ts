import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';
import { addJob, addProject, addRun, createOwlDb, type JobRow } from './owl-db.js';

export interface OwlHome {
  home: string;
  data: string;
  state: string;
  configDir: string;
  repo: string;
  worktree(id: number | string): string;
  config(id: number | string): string;
  db: string;
}

export function owlHome(root: string): OwlHome {
  const home = path.join(root, 'home');
  const data = path.join(home, '.local', 'share', 'coding-owl');
  const repo = path.join(home, 'src', 'app');
  mkdirSync(path.join(data, 'worktrees'), { recursive: true });
  mkdirSync(path.join(data, 'worktree-config'), { recursive: true });
  mkdirSync(path.join(home, '.local', 'state', 'coding-owl'), { recursive: true });
  makeRepo(repo);
  sh(repo, 'config', 'extensions.worktreeConfig', 'true');
  return {
    home,
    data,
    state: path.join(home, '.local', 'state', 'coding-owl'),
    configDir: path.join(home, '.config', 'coding-owl'),
    repo,
    worktree: (id) => path.join(data, 'worktrees', String(id)),
    config: (id) => path.join(data, 'worktree-config', String(id)),
    db: path.join(data, 'owl.db'),
  };
}

/** A job worktree the way Owl makes one: `git worktree add -b owl/job-<id>`, its excludes in worktree-config/<id>/, one commit. */
export function jobWorktree(owl: OwlHome, id: number | string): string {
  const folder = owl.worktree(id);
  addWorktree(owl.repo, folder, `owl/job-${id}`);
  const excludes = put(path.join(owl.config(id), 'excludes'), '.owl/\n');
  sh(folder, 'config', '--worktree', 'core.excludesFile', excludes);
  commitFile(folder, `job-${id}.txt`, `work of job ${id}\n`);
  return folder;
}

/**
 * Every branch of ADR-0015 in one home: jobs in all seven states, vanished jobs, runs in progress
 * and ended, dirty and untracked trees, a detached unique commit, a submodule, a lock, a stale admin
 * entry of Owl's and one of a worktree the user made elsewhere, a left-over worktree-config.
 */
export function buildOwlScenario(root: string): OwlHome {
  const owl = owlHome(root);
  const db = createOwlDb(owl.db);
  addProject(db, 'app', owl.repo);
  const job = (row: JobRow) => addJob(db, { branch: `owl/job-${row.id}`, worktree: owl.worktree(row.id), ...row });

  for (const id of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17]) jobWorktree(owl, id);
  job({ id: 1, state: 'done' });
  put(path.join(owl.worktree(1), 'build.log'), 'ignored output\n');
  job({ id: 2, state: 'cancelled' });
  // 3 and 4 have no job row: the job vanished. 4 also lost its branch and holds a detached commit.
  sh(owl.worktree(4), 'checkout', '-q', '--detach');
  sh(owl.repo, 'branch', '-D', 'owl/job-4');
  commitFile(owl.worktree(4), 'only-here.txt', 'the only copy\n', 'unpushed work');
  job({ id: 5, state: 'done' });
  put(path.join(owl.worktree(5), 'job-5.txt'), 'edited but not committed\n');
  job({ id: 6, state: 'cancelled' });
  put(path.join(owl.worktree(6), 'notes', 'draft.md'), 'untracked only\n');
  job({ id: 7, state: 'review' });
  addRun(db, { jobId: 7, started: daysAgo(12), ended: daysAgo(11.9), outcome: 'failed' });
  addRun(db, { jobId: 7, started: daysAgo(10.1), ended: daysAgo(10) });
  job({ id: 8, state: 'review' });
  addRun(db, { jobId: 8, started: daysAgo(1.1), ended: daysAgo(1) });
  job({ id: 9, state: 'active' });
  addRun(db, { jobId: 9, started: daysAgo(2) });
  job({ id: 10, state: 'pending' });
  job({ id: 11, state: 'blocked' });
  job({ id: 12, state: 'exhausted' });
  addRun(db, { jobId: 12, started: daysAgo(5), ended: daysAgo(4.9), outcome: 'failed' });
  job({ id: 13, state: 'active', worktree: '' });
  addRun(db, { jobId: 13, started: daysAgo(2) });
  job({ id: 14, state: 'done' });
  rmSync(owl.worktree(14), { recursive: true, force: true });
  job({ id: 15, state: 'done' });
  const lib = makeRepo(path.join(owl.home, 'src', 'lib'));
  sh(owl.worktree(15), 'submodule', 'add', '-q', lib, 'lib');
  sh(owl.worktree(15), 'commit', '-q', '-m', 'add submodule');
  job({ id: 16, state: 'cancelled' });
  sh(owl.repo, 'worktree', 'lock', '--reason', 'held by a person', owl.worktree(16));
  job({ id: 17, state: 'done' });
  sh(owl.repo, 'worktree', 'remove', owl.worktree(17));
  db.close();

  // A worktree the user made outside Owl, whose folder is gone: its admin entry is never Owl's.
  const elsewhere = path.join(owl.home, 'elsewhere', 'feature');
  addWorktree(owl.repo, elsewhere, 'feature');
  rmSync(elsewhere, { recursive: true, force: true });
  backdate(root, daysAgo(3));
  return owl;
}
