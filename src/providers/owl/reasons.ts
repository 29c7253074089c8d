import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';
import { WORKTREE_REASONS } from '../../engines/git-worktree/reasons.js';

export const OWL_REASONS = {
  ...WORKTREE_REASONS,
  'job-done': DELETES,
  'job-cancelled': DELETES,
  'job-vanished': DELETES,
  'stale-admin-entry': DELETES,
  'orphan-worktree-config': DELETES,
  'job-open': ['kept'],
  'job-state-unknown': ['kept'],
  'review-overdue': ['unfinished'],
  'active-without-daemon': ['unfinished'],
} as const satisfies ReasonTable;
