import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { diffInventories, type Entry } from './inventory.js';
import { put } from './fs-fixtures.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test Person',
  GIT_AUTHOR_EMAIL: 'person@example.invalid',
  GIT_COMMITTER_NAME: 'Test Person',
  GIT_COMMITTER_EMAIL: 'person@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs the real git for a fixture and answers its stdout. */
export function sh(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    [
      '-c',
      'init.defaultBranch=main',
      '-c',
      'commit.gpgsign=false',
      '-c',
      'protocol.file.allow=always',
      '-c',
      'safe.directory=*',
      ...args,
    ],
    {
      cwd,
      env: { ...process.env, ...IDENTITY },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** A repository on `main` with one commit and a .gitignore that ignores `*.log`. */
export function makeRepo(dir: string): string {
  put(path.join(dir, 'README.md'), '# project\n');
  put(path.join(dir, '.gitignore'), '*.log\n');
  sh(dir, 'init', '-q');
  sh(dir, 'add', '.');
  sh(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

/** `git worktree add -b <branch> <folder>` from the repository. */
export function addWorktree(repo: string, folder: string, branch: string): string {
  sh(repo, 'worktree', 'add', '-q', '-b', branch, folder);
  return folder;
}

export function commitFile(worktree: string, file: string, content: string, message = `add ${file}`): string {
  put(path.join(worktree, file), content);
  sh(worktree, 'add', file);
  sh(worktree, 'commit', '-q', '-m', message);
  return sh(worktree, 'rev-parse', 'HEAD').trim();
}

/** What git says of a repository, for before/after comparisons. */
export interface RepoState {
  worktrees: string;
  branches: string[];
  refs: string;
  indexHash: string;
}

export function repoState(repo: string): RepoState {
  const gitDir = path.join(repo, '.git');
  return {
    worktrees: sh(repo, 'worktree', 'list', '--porcelain'),
    branches: sh(repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort(),
    refs: sh(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    indexHash: existsSync(path.join(gitDir, 'index'))
      ? createHash('sha256')
          .update(readFileSync(path.join(gitDir, 'index')))
          .digest('hex')
      : '',
  };
}

/** The worktree paths `git worktree list --porcelain` names, the main one included. */
export function listedWorktrees(repo: string): string[] {
  return sh(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

/**
 * Asserts that between two inventories of `root` exactly the given trees disappeared, only the
 * given folders changed (their entries list), and nothing else was added or changed but what `ignore` allows.
 */
export function expectOnly(
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  expected: { removed?: string[]; changedDirs?: string[]; ignore?: (key: string) => boolean },
): void {
  const diff = diffInventories(before, after);
  const removedRoots = expected.removed ?? [];
  const isUnder = (key: string, tree: string) => key === tree || key.startsWith(tree + path.sep);
  expect(diff.removed.filter((key) => !removedRoots.some((tree) => isUnder(key, tree)))).toEqual([]);
  for (const tree of removedRoots) expect(diff.removed, `${tree} should be gone`).toContain(tree);
  const ignore = expected.ignore ?? (() => false);
  expect(diff.changed.filter((key) => !(expected.changedDirs ?? []).includes(key) && !ignore(key))).toEqual([]);
  expect(diff.added.filter((key) => !ignore(key))).toEqual([]);
}

/** SQLite's own companions of a database opened read-only; Owl's daemon has them too. */
export const sqliteCompanion = (key: string): boolean => /\.db-(wal|shm)$/.test(key);
