import { DELETES, type ReasonTable } from '../../core/reasons.js';
import { WORKTREE_REASONS } from '../../engines/git-worktree/reasons.js';

export const WORKTREES_REASONS = {
  ...WORKTREE_REASONS,
  'idle-clean': DELETES,
  'not-idle': ['kept', 'refused'],
} as const satisfies ReasonTable;
