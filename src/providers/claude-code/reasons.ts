import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';

export const CLAUDE_CODE_REASONS = {
  'session-ended': DELETES,
  'project-folder-empty': DELETES,
  'session-live': ['kept', 'refused'],
  'adopted-shell-live': ['kept', 'refused'],
  'session-process-live': ['kept', 'refused'],
  'linked-from-live-session': ['kept', 'refused'],
  'claude-state-reported': ['kept'],
  'retention-expired': DELETES,
  'settings-unknowable': ['refused'],
} as const satisfies ReasonTable;
