import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';

/** What the SQLite log engine gives, for every provider whose tool keeps its state in SQLite (codex, kilo, cline). */
export const WAL_REASONS = {
  'wal-left-behind': DELETES,
  'orphan-wal': ['refused'],
  'remote-filesystem': ['refused'],
  'checkpoint-refused': ['refused'],
} as const satisfies ReasonTable;
