import path from 'node:path';
import type Database from 'better-sqlite3';
import { SourceOfTruthError, errorMessage } from '../../model/errors.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import { readLockTable, takeFlocks, type LockTable } from '../../safety/locks/flock.js';
import { readOwnerDatabase } from '../../util/sqlite.js';
import { THREAD_ID, writerLocksFolder } from './layout.js';

/** One row of Codex's `threads` table, as far as this provider reads it. */
interface ThreadRow {
  id: string;
  cwd: string;
  archived: boolean;
  /** When it was archived (ms), where the row says. */
  archivedAtMs: number | null;
  /** Its last activity (ms), where the row says. */
  updatedAtMs: number | null;
}

export interface ThreadRecords {
  file: string;
  byId: ReadonlyMap<string, ThreadRow>;
  rows: readonly ThreadRow[];
}

// The columns the rule reads; any one missing means a schema this reader does not know.
const NEEDED = ['id', 'cwd', 'archived'];
const BUSY_TIMEOUT_MS = 3_000;

/**
 * Codex's thread database (`state_5.sqlite`, in WAL mode, written by every Codex process), read
 * read-only with a busy timeout. Any doubt about its schema fails closed, naming the file.
 */
export function readThreads(file: string): ThreadRecords {
  const stats = lstatOrNullSync(file);
  if (!stats) throw new SourceOfTruthError(`${file} is missing, so no worktree can be matched to its thread`);
  if (!stats.isFile()) throw new SourceOfTruthError(`${file} is not a regular file`);
  return { file, ...readOwnerDatabase(file, BUSY_TIMEOUT_MS, (db) => readFrom(db, file)) };
}

function readFrom(db: Database.Database, file: string): Omit<ThreadRecords, 'file'> {
  const columns = new Set(
    (db.prepare('PRAGMA table_info(threads)').all() as Array<{ name: string }>).map((column) => column.name),
  );
  const missing = NEEDED.filter((column) => !columns.has(column));
  if (missing.length > 0)
    throw new SourceOfTruthError(
      `${file}: the threads table ${columns.size === 0 ? 'is missing' : `has no ${missing.join(', ')}`}: a schema this version does not know`,
    );
  const pick = (column: string) => (columns.has(column) ? column : 'NULL');
  const rows = db
    .prepare(
      `SELECT id, cwd, archived, ${pick('archived_at')} AS archived_at, ${pick('updated_at')} AS updated_at, ${pick('updated_at_ms')} AS updated_at_ms FROM threads`,
    )
    .all() as Array<Record<string, unknown>>;
  const parsed: ThreadRow[] = [];
  for (const row of rows) {
    if (typeof row.id !== 'string' || typeof row.cwd !== 'string')
      throw new SourceOfTruthError(`${file}: a thread row has no text id or cwd`);
    parsed.push({
      id: row.id,
      cwd: row.cwd,
      archived: Number(row.archived) !== 0,
      archivedAtMs: seconds(row.archived_at),
      updatedAtMs: typeof row.updated_at_ms === 'number' ? row.updated_at_ms : seconds(row.updated_at),
    });
  }
  return { byId: new Map(parsed.map((row) => [row.id, row])), rows: parsed };
}

/** Codex keeps these times in seconds since the epoch. */
const seconds = (value: unknown): number | null => (typeof value === 'number' ? value * 1000 : null);

/** Whether a thread has a live writer, by the lock Codex's session holds on `thread-writer-locks/<id>.lock`. */
export type WriterState =
  | { state: 'live'; lock: string }
  | { state: 'free' }
  /** The lock could not be looked at: nothing may be concluded. */
  | { state: 'unknown'; detail: string };

/** The writer locks of one Codex home as the plan sees them: from /proc/locks, taking nothing. */
export function writerLocksSeen(codexHome: string, locks: LockTable = readLockTable()) {
  return (thread: string): WriterState => {
    if (!THREAD_ID.test(thread)) return { state: 'unknown', detail: `${thread} is not a Codex thread id` };
    const lock = path.join(writerLocksFolder(codexHome), `${thread}.lock`);
    const locked = locks.isLocked(lock);
    if (locked === null)
      return { state: 'unknown', detail: `whether ${lock} is held cannot be told: ${locks.unreadable}` };
    return locked ? { state: 'live', lock } : { state: 'free' };
  };
}

/**
 * The same, taken as Codex itself probes a writer (its rollout publication does): under its
 * `.coordination.lock`, which every writer takes before it opens its thread's lock, the thread's
 * lock is tried without waiting and let go at once. A coordination lock held elsewhere says
 * nothing either way (a writer is starting or ending): unknown. No lock file is made.
 */
export function probeWriter(codexHome: string, thread: string): Promise<WriterState> {
  // One probe at a time in this process: worktrees are removed side by side, and a second probe of
  // ours would find the coordination lock held by the first.
  const probe = probing.then(() => probeNow(codexHome, thread));
  probing = probe.catch(() => undefined);
  return probe;
}

let probing: Promise<unknown> = Promise.resolve();

async function probeNow(codexHome: string, thread: string): Promise<WriterState> {
  if (!THREAD_ID.test(thread)) return { state: 'unknown', detail: `${thread} is not a Codex thread id` };
  const folder = writerLocksFolder(codexHome);
  const coordination = path.join(folder, '.coordination.lock');
  const lock = path.join(folder, `${thread}.lock`);
  let attempt: Awaited<ReturnType<typeof takeFlocks>>;
  try {
    attempt = await takeFlocks([coordination, lock]);
  } catch (err) {
    return { state: 'unknown', detail: `the writer lock ${lock} cannot be tested: ${errorMessage(err)}` };
  }
  if ('busy' in attempt)
    return attempt.busy === lock
      ? { state: 'live', lock }
      : { state: 'unknown', detail: `Codex's ${coordination} is held: a thread writer is starting or ending` };
  attempt.held.release();
  return { state: 'free' };
}
