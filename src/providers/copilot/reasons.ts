import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';
import { WAL_REASONS } from '../../engines/sqlite-wal/reasons.js';

export const COPILOT_REASONS = {
  ...WAL_REASONS,
  'log-retention': DELETES,
  'log-retained': ['kept'],
  'log-writer-live': ['kept'],
  'copilot-session': ['kept'],
  'session-in-use': ['kept', 'refused'],
} as const satisfies ReasonTable;
