import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';
import { WORKTREE_REASONS } from '../../engines/git-worktree/reasons.js';

export const WORKTREES_REASONS = {
  ...WORKTREE_REASONS,
  'idle-clean': DELETES,
  'not-idle': ['kept', 'refused'],
} as const satisfies ReasonTable;
