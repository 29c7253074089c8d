import type Database from 'better-sqlite3';
import { SourceOfTruthError, errorMessage } from '../../core/errors.js';
import { openSqliteReadOnly } from '../../util/sqlite.js';

/** How long a read waits for the editor or the tool while it writes (VS Code flushes about 100 ms after a change). */
const BUSY_TIMEOUT_MS = 3_000;

/** Opens an owner's SQLite database read-only; a SourceOfTruthError naming the file when it cannot. */
export function openReadOnly(file: string): Database.Database {
  try {
    return openSqliteReadOnly(file, BUSY_TIMEOUT_MS);
  } catch (err) {
    throw new SourceOfTruthError(`${file}: cannot open read-only: ${errorMessage(err)}`);
  }
}
