import { DELETES, type ReasonTable } from '../../core/reasons.js';

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
