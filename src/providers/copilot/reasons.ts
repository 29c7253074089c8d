import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';

export const COPILOT_REASONS = {
  'log-retention': DELETES,
  'log-retained': ['kept'],
  'log-writer-live': ['kept'],
  'copilot-session': ['kept'],
  'session-in-use': ['kept', 'refused'],
} as const satisfies ReasonTable;
