import path from 'node:path';
import Database from 'better-sqlite3';
import { LockHeldError, errorMessage } from '../core/errors.js';
import { mkdir } from './fs.js';

export interface RunLock {
  path: string;
  release(): void;
}

/**
 * One pass at a time. The lock is an exclusive SQLite transaction on `<reportDir>/run.lock`: a
 * POSIX record lock that the kernel drops the moment its holder dies, so a lock left by a killed
 * pass never blocks the next, and it works across containers that share the folder.
 */
export async function acquireRunLock(reportDir: string): Promise<RunLock> {
  await mkdir(reportDir, 0o755);
  const file = path.join(reportDir, 'run.lock');
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (
      /SQLITE_BUSY|database is locked/i.test(errorMessage(err)) ||
      (err as { code?: string }).code === 'SQLITE_BUSY'
    ) {
      throw new LockHeldError(`another agent-janitor pass holds ${file}; nothing was done`);
    }
    throw err;
  }
  return {
    path: file,
    release() {
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}
