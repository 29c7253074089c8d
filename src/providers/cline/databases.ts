import type Database from 'better-sqlite3';
import { SourceOfTruthError } from '../../model/errors.js';
import { BUSY_TIMEOUT_MS } from '../../engines/vscode-storage/read-only-db.js';
import { readOwnerDatabase } from '../../util/sqlite.js';

/**
 * The session ids of a Cline 4 session database (`sessions(session_id, …)`). Cline 4 reuses a
 * legacy task's id when it resumes that task, so each id counts as a task that exists. Read-only;
 * throws a SourceOfTruthError naming the file when it cannot be read or has no such table.
 */
export function readSessionIds(file: string): string[] {
  return withDatabase(file, (db) => {
    if (!hasColumns(db, 'sessions', ['session_id'])) {
      throw new SourceOfTruthError(`${file}: unknown schema: no table sessions with the column session_id`);
    }
    return (db.prepare('SELECT session_id FROM sessions').all() as Array<{ session_id: unknown }>)
      .map((row) => row.session_id)
      .filter((id): id is string => typeof id === 'string');
  });
}

/** The folder locks Cline's standalone host holds: `locks(lock_type, lock_target, held_by, …)`. */
export interface FolderLock {
  target: string;
  heldBy: string;
  lockedAtMs: number | null;
}

/**
 * The folder locks of `locks.db` (the CLI and JetBrains hosts take one around every checkpoint
 * commit and restore, and one per running task). Read-only; throws a SourceOfTruthError naming the
 * file when it cannot be read or has another schema.
 */
export function readFolderLocks(file: string): FolderLock[] {
  return withDatabase(file, (db) => {
    if (!hasColumns(db, 'locks', ['lock_type', 'lock_target', 'held_by'])) {
      throw new SourceOfTruthError(`${file}: unknown schema: no table locks with lock_type, lock_target and held_by`);
    }
    const at = hasColumns(db, 'locks', ['locked_at']) ? ', locked_at' : '';
    const rows = db.prepare(`SELECT lock_target, held_by${at} FROM locks WHERE lock_type = 'folder'`).all() as Array<{
      lock_target: unknown;
      held_by: unknown;
      locked_at?: unknown;
    }>;
    return rows
      .filter((row) => typeof row.lock_target === 'string')
      .map((row) => ({
        target: row.lock_target as string,
        heldBy: String(row.held_by),
        lockedAtMs: typeof row.locked_at === 'number' ? row.locked_at : null,
      }));
  });
}

function withDatabase<T>(file: string, read: (db: Database.Database) => T): T {
  return readOwnerDatabase(file, BUSY_TIMEOUT_MS, read);
}

function hasColumns(db: Database.Database, table: string, wanted: string[]): boolean {
  const columns = new Set(
    (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((column) =>
      column.name.toLowerCase(),
    ),
  );
  return wanted.every((column) => columns.has(column));
}
