import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { LockHeldError, errorMessage } from '../../model/errors.js';
import { lstatOrNullSync, type Stats } from '../fs/stat.js';
import { renameSync } from '../fs/entries.js';
import { truncateRegularFileSync } from '../fs/write.js';
import { prepareOwnFolder } from './own-folder.js';
import { openSqlite } from '../../util/sqlite.js';

export interface RunLock {
  path: string;
  /** What was wrong with the lock file this pass found and replaced, if anything. */
  repaired: string | null;
  release(): void;
}

type Attempt = { held: RunLock } | { busy: true } | { unusable: string };

/**
 * One pass at a time. The lock is an exclusive SQLite transaction on `<reportDir>/run.lock`: a
 * POSIX record lock that the kernel drops the moment its holder dies, so a lock left by a killed
 * pass never blocks the next, and it works across containers that share the folder.
 *
 * A lock file that is not what a pass expects (garbage bytes, a folder, a link) is repaired instead
 * of failing every later pass. The repair never changes which file a holder has locked: record
 * locks belong to the inode, and a file some pass holds is always a valid database (a garbage one
 * cannot be locked at all, so a pass that finds garbage knows nobody holds it). Garbage in a regular
 * file is truncated in place (an empty file is an empty database), which leaves the inode alone;
 * an entry of another type is moved aside, under a second lock that every repair takes, so two
 * repairs never move each other's fresh file.
 */
export async function acquireRunLock(reportDir: string): Promise<RunLock> {
  await prepareOwnFolder(reportDir, 'the report folder');
  const file = path.join(reportDir, 'run.lock');
  const first = attemptLock(file);
  if ('held' in first) return first.held;
  if ('busy' in first) throw held(file);
  withRepairLock(file, () => repair(file));
  const second = attemptLock(file);
  if ('held' in second) return { ...second.held, repaired: first.unusable };
  if ('busy' in second) throw held(file);
  throw new Error(`${file} cannot be used as the run lock even after it was replaced: ${second.unusable}`);
}

function held(file: string): LockHeldError {
  return new LockHeldError(`another agent-janitor pass holds ${file}; nothing was done`);
}

function attemptLock(file: string, waitMs = 0): Attempt {
  const entry = lstatOrNullSync(file);
  if (entry && !entry.isFile()) return { unusable: `${file} is ${describeType(entry)}, not a regular file` };
  let db: Database.Database;
  try {
    db = openSqlite(file, { timeout: waitMs });
  } catch (err) {
    return { unusable: errorMessage(err) };
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (isBusy(err)) return { busy: true };
    return { unusable: errorMessage(err) };
  }
  return {
    held: {
      path: file,
      repaired: null,
      release() {
        try {
          db.exec('ROLLBACK');
        } finally {
          db.close();
        }
      },
    },
  };
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'SQLITE_BUSY' || /SQLITE_BUSY|database is locked/i.test(errorMessage(err));
}

/**
 * Makes `file` usable again. Runs under the repair lock; looks again first, because another pass
 * may have repaired it meanwhile (then its lock attempt answers).
 */
function repair(file: string): void {
  const entry = lstatOrNullSync(file);
  if (!entry) return;
  if (entry.isFile()) {
    const again = attemptLock(file);
    if (!('unusable' in again)) {
      if ('held' in again) again.held.release();
      return;
    }
    truncateRegularFileSync(file, { dev: entry.dev, ino: entry.ino });
    return;
  }
  // Nothing can lock a folder, a link or a FIFO, and only repairs move them: a rename is safe here.
  renameSync(file, `${file}.invalid-${randomUUID()}`);
}

function describeType(entry: Stats): string {
  if (entry.isDirectory()) return 'a folder';
  if (entry.isSymbolicLink()) return 'a symlink';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  return 'a device';
}

/** Runs `work` holding `<file>.repair`, waiting a little for another repair to finish. */
function withRepairLock(file: string, work: () => void): void {
  const guard = `${file}.repair`;
  let attempt = attemptLock(guard, 5_000);
  if ('unusable' in attempt) {
    const entry = lstatOrNullSync(guard);
    if (!entry?.isFile()) throw new Error(`${guard} is not a regular file (${attempt.unusable}); remove it`);
    truncateRegularFileSync(guard, { dev: entry.dev, ino: entry.ino });
    attempt = attemptLock(guard, 5_000);
  }
  if ('busy' in attempt) throw held(file);
  if ('unusable' in attempt) throw new Error(`${guard} cannot be used to repair the run lock: ${attempt.unusable}`);
  try {
    work();
  } finally {
    attempt.held.release();
  }
}
