import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';

export const GOOSE_REASONS = {
  'goose-log-expired': DELETES,
  'goose-log-retained': ['kept'],
  'goose-log-reported': ['kept'],
  'goose-sessions': ['kept'],
} as const satisfies ReasonTable;
