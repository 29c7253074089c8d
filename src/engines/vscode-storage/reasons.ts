import type { ReasonTable } from '../../model/types.js';

/** What the VS Code storage reader finds of an extension's tasks and checkpoint repositories (cline, roo). */
export const VSCODE_REASONS = {
  'task-deleted': ['deleted', 'would-delete'],
  'task-in-history': ['kept'],
  'alive-legacy-format': ['unfinished'],
  'unknown-commits': ['unfinished'],
  'orphan-task-folder': ['unfinished'],
  'signature-mismatch': ['refused'],
  'git-lock-file': ['refused'],
  'history-unsettled': ['refused'],
  'worktree-unrecorded': ['refused'],
} as const satisfies ReasonTable;
