import Database from 'better-sqlite3';
import { errorMessage, SourceOfTruthError } from '../model/errors.js';

/** Every SQLite database this tool opens (owners' read-only, the run lock, the demo's) is opened here. */
export function openSqlite(file: string, options: Database.Options = {}): Database.Database {
  return new Database(file, options);
}

/** Opens an owner's SQLite database read-only. */
export function openSqliteReadOnly(file: string, busyTimeoutMs: number): Database.Database {
  return openSqlite(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
}

/** The same, a SourceOfTruthError naming the file when it cannot be opened. */
export function openOwnerDatabase(file: string, busyTimeoutMs: number): Database.Database {
  try {
    return openSqliteReadOnly(file, busyTimeoutMs);
  } catch (err) {
    throw new SourceOfTruthError(`${file}: cannot open read-only: ${errorMessage(err)}`);
  }
}
