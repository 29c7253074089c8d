import { git } from '../git/git.js';

/** What `git status` says is at stake in a worktree: tracked changes and untracked files. */
export interface WorktreeChanges {
  changed: number;
  untracked: number;
  /** A few of the paths, for the report's detail. */
  sample: string[];
}

/**
 * `git status --porcelain --untracked-files=all`: every untracked file counts (ignored ones do
 * not), and submodules are not ignored. GIT_OPTIONAL_LOCKS=0 (src/git/git.ts) keeps status from
 * refreshing the index, so an agent's index.lock is never taken or raced.
 */
export async function readChanges(worktree: string): Promise<WorktreeChanges> {
  const out = await git(['status', '--porcelain', '--untracked-files=all', '--ignore-submodules=none'], { cwd: worktree });
  const changes: WorktreeChanges = { changed: 0, untracked: 0, sample: [] };
  for (const line of out.split('\n')) {
    if (line.length < 4) continue;
    if (line.startsWith('??')) changes.untracked += 1;
    else changes.changed += 1;
    if (changes.sample.length < 3) changes.sample.push(line.slice(3));
  }
  return changes;
}

export function isClean(changes: WorktreeChanges): boolean {
  return changes.changed === 0 && changes.untracked === 0;
}

export function describeChanges(changes: WorktreeChanges): string {
  const parts: string[] = [];
  if (changes.changed > 0) parts.push(`${changes.changed} uncommitted change${changes.changed === 1 ? '' : 's'}`);
  if (changes.untracked > 0) parts.push(`${changes.untracked} untracked file${changes.untracked === 1 ? '' : 's'}`);
  const more = changes.changed + changes.untracked > changes.sample.length ? ', …' : '';
  return `${parts.join(' and ')} (${changes.sample.join(', ')}${more})`;
}
