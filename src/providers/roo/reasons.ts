import type { ReasonTable } from '../../model/types.js';
import { VSCODE_REASONS } from '../../engines/vscode-storage/reasons.js';
import { GIT_GARBAGE_REASONS } from '../../engines/git-garbage/reasons.js';

export const ROO_REASONS = {
  ...VSCODE_REASONS,
  ...GIT_GARBAGE_REASONS,
  'unexpected-workspace-repo': ['unfinished'],
  'custom-path-unmounted': ['refused'],
} as const satisfies ReasonTable;
