import type { ReasonTable } from '../../model/types.js';

/** What the git worktree engine finds in a worktree, for every provider that judges worktrees with it. */
export const WORKTREE_REASONS = {
  'git-locked': ['refused'],
  'uncommitted-changes': ['unfinished'],
  'unique-commits': ['unfinished'],
  'operation-in-progress': ['unfinished'],
  'nested-repository': ['unfinished'],
  'has-submodule': ['refused'],
  'admin-entry-missing': ['refused'],
  'admin-mismatch': ['refused'],
  'not-a-worktree': ['refused'],
} as const satisfies ReasonTable;
