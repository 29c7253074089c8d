import Database from 'better-sqlite3';
import { errorMessage, SourceOfTruthError } from '../model/errors.js';

/** Every SQLite database this tool opens (owners' read-only, the run lock, the demo's) is opened here. */
export function openSqlite(file: string, options: Database.Options = {}): Database.Database {
  return new Database(file, options);
}

/** Opens an owner's SQLite database read-only. */
function openSqliteReadOnly(file: string, busyTimeoutMs: number): Database.Database {
  return openSqlite(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
}

/**
 * Reads an owner's SQLite database: opened read-only (waiting at most `busyTimeoutMs` for the
 * tool's own writes), read in one transaction so every table comes from the same snapshot, and
 * closed. Anything that goes wrong is a SourceOfTruthError naming the file (the provider fails
 * closed); one the reader throws itself is kept as it is.
 */
export function readOwnerDatabase<T>(file: string, busyTimeoutMs: number, read: (db: Database.Database) => T): T {
  let db: Database.Database;
  try {
    db = openSqliteReadOnly(file, busyTimeoutMs);
  } catch (err) {
    throw new SourceOfTruthError(`${file}: cannot open read-only: ${errorMessage(err)}`);
  }
  try {
    return db.transaction(() => read(db))();
  } catch (err) {
    if (err instanceof SourceOfTruthError) throw err;
    throw new SourceOfTruthError(`${file}: cannot be read: ${errorMessage(err)}`);
  } finally {
    db.close();
  }
}
