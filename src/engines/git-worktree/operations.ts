import { readdirNamesSync } from '../../safety/fs/list.js';

/** What git leaves in a worktree's own git dir while an operation waits for a person to finish it. */
const MARKERS: ReadonlyArray<[entry: string, operation: string]> = [
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase (or `git am`)'],
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['sequencer', 'a cherry-pick or revert of several commits'],
  ['BISECT_LOG', 'a bisect'],
  ['BISECT_START', 'a bisect'],
];

/**
 * The operation under way in a worktree (one read of its admin entry), or null. A rebase stopped
 * on a conflict or an `edit`, a merge, cherry-pick or revert waiting for its commit, a bisect: the
 * tree may look clean and its HEAD be held by a branch, yet someone is in the middle of work that
 * removing the worktree would throw away.
 */
export function operationInProgress(adminDir: string): string | null {
  const names = new Set(readdirNamesSync(adminDir));
  for (const [entry, operation] of MARKERS) if (names.has(entry)) return `${operation} is in progress (${entry})`;
  return null;
}
