import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';

export const WATCHFIRE_REASONS = {
  'project-deleted': DELETES,
  'transcript-exported': DELETES,
  'failed-start': DELETES,
  'session-running': ['kept'],
  'session-interrupted': ['unfinished'],
  'transcript-not-exported': ['unfinished'],
  'unrecognized-name': ['refused'],
  'home-unreadable': ['refused'],
} as const satisfies ReasonTable;
