import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';
import { GIT_GARBAGE_REASONS } from '../../engines/git-garbage/reasons.js';
import { WAL_REASONS } from '../../engines/sqlite-wal/reasons.js';

export const KILO_REASONS = {
  ...GIT_GARBAGE_REASONS,
  ...WAL_REASONS,
  'worktree-removed': DELETES,
  'kilo-delete-leftover': DELETES,
  'worktree-present': ['kept', 'refused'],
  'legacy-project-repo': ['kept', 'refused'],
  'unmanaged-worktree': ['refused'],
  'owner-unknown': ['refused'],
  'owner-unreadable': ['refused'],
  'worktree-still-registered': ['refused'],
  'agent-manager-lists-worktree': ['refused'],
  'agent-manager-unreadable': ['refused'],
  'worktree-hash-mismatch': ['refused'],
  'worktree-unrecorded': ['refused'],
  'worktree-unreadable': ['refused'],
  'kilo-lock-held': ['refused'],
  'being-seeded': ['refused'],
  'lock-location-unknown': ['refused'],
  'opencode-log-rotated': DELETES,
  'opencode-log-reported': ['kept'],
  'opencode-tool-output-expired': DELETES,
  'opencode-tool-output-retained': ['kept'],
  'opencode-diff-orphaned': DELETES,
  'opencode-diff-live': ['kept'],
  'kilo-retention-unverified': ['kept'],
} as const satisfies ReasonTable;
