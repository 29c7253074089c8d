import type { ReasonTable } from '../../model/types.js';
import { VSCODE_REASONS } from '../../engines/vscode-storage/reasons.js';
import { GIT_GARBAGE_REASONS } from '../../engines/git-garbage/reasons.js';
import { WAL_REASONS } from '../../engines/sqlite-wal/reasons.js';

export const CLINE_REASONS = {
  ...VSCODE_REASONS,
  ...GIT_GARBAGE_REASONS,
  ...WAL_REASONS,
  'cline-lock-held': ['refused'],
  'worktree-hash-mismatch': ['refused'],
} as const satisfies ReasonTable;
