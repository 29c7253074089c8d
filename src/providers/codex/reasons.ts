import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';
import { WORKTREE_REASONS } from '../../engines/git-worktree/reasons.js';
import { WAL_REASONS } from '../../engines/sqlite-wal/reasons.js';

export const CODEX_REASONS = {
  ...WORKTREE_REASONS,
  ...WAL_REASONS,
  'staging-dead': DELETES,
  'staging-expired': DELETES,
  'plugin-clone-dead': DELETES,
  'backup-superseded': DELETES,
  'only-copy': ['unfinished'],
  'staging-locked': ['refused'],
  'staging-lock-unusable': ['refused'],
  'codex-threshold': ['kept', 'refused'],
  'thread-archived': DELETES,
  'thread-gone': DELETES,
  'idle-clean': DELETES,
  'not-idle': ['kept', 'refused'],
  'thread-live': ['kept', 'refused'],
  'thread-unknown': ['kept', 'refused'],
  'writer-lock-unknown': ['refused'],
  'codex-conversations': ['kept'],
  'codex-release': ['kept'],
  'log-db-superseded': DELETES,
  'log-db-retained': ['kept'],
  'log-db-current': ['kept'],
  'log-db-wal-remains': ['refused'],
} as const satisfies ReasonTable;
