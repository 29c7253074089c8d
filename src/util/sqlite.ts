import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { errorMessage, SourceOfTruthError } from '../core/errors.js';

type DatabaseConstructor = typeof Database;

let driver: DatabaseConstructor | null = null;

/**
 * Opens an owner's SQLite database read-only. The native driver is loaded on the first open, not
 * when a provider's module is imported: most passes find no database to read, and loading the
 * addon is a measurable part of the cost every pass pays.
 */
export function openSqliteReadOnly(file: string, busyTimeoutMs: number): Database.Database {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  return new driver(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
}

/** The same, a SourceOfTruthError naming the file when it cannot be opened. */
export function openOwnerDatabase(file: string, busyTimeoutMs: number): Database.Database {
  try {
    return openSqliteReadOnly(file, busyTimeoutMs);
  } catch (err) {
    throw new SourceOfTruthError(`${file}: cannot open read-only: ${errorMessage(err)}`);
  }
}
