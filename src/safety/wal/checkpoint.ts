import { errorMessage, RemovalStopped } from '../../model/errors.js';
import type { CheckpointSizes } from '../../model/types.js';
import { formatBytes } from '../../util/format.js';
import { openSqlite } from '../../util/sqlite.js';
import { lstatOrNullSync } from '../fs/stat.js';
import { asOwner, type Owner } from '../owners/owner.js';
import type { ProcessTable } from '../processes/processes.js';
import { examineWalPair, walFilesOf, walHolders, type SeenFile } from './pair.js';

/** What the plan saw of a database whose log it judged, and how the checkpoint is to run. */
export interface CheckpointRequest {
  database: string;
  /** The log and the database as the plan saw them: they must still be these files, unwritten. */
  planned: { wal: SeenFile; database: SeenFile };
  /** Whether the shared memory's newest write counts for minAge (not where this tool's own reads rewrite it). */
  shmAged: boolean;
  minAgeMs: number;
  /** Who runs it (rule 6): the owner of the three files, or null for "as we are". */
  owner: Owner | null;
  /** A fresh look at /proc, or null where processes are not looked at (`processCheck: off` and blind). */
  processes: ProcessTable | null;
}

/** The one statement ever run on an owner's database (CONTRACT rule 10). */
const CHECKPOINT = 'wal_checkpoint(TRUNCATE)';

/**
 * The last proof of a log, then its checkpoint, synchronously, with nothing of this process in
 * between. Proven again: the pair as examineWalPair wants it (regular files, no link, one owner,
 * one device, a WAL header, a local file system), the very log and database the plan judged with
 * no write since (device, inode, size, mtime: this tool's own reads of a database rewrite its
 * shared memory, and as root change its log's ctime, never those), nothing written within minAge,
 * and no process holding any of the three files. Then, as the owner, SQLite opens the database
 * read-write without creating it, waits for no lock (`busy_timeout` 0), and runs nothing but
 * `PRAGMA wal_checkpoint(TRUNCATE)`: never a row, a persistent pragma, a change of journal mode or
 * a `VACUUM`. Success is `(0, n, n)` and a log of 0 bytes (or none, once the last connection
 * closed); any other answer, and any error of SQLite's, stops it as `refused` with SQLite's own
 * words, and nothing else is tried. Answers the sizes before and after.
 */
export function checkpointWal(request: CheckpointRequest): CheckpointSizes {
  const { database, planned } = request;
  const stop = (reason: string, detail: string) => new RemovalStopped('refused', reason, detail);
  const files = walFilesOf(database);
  if (!database.isWellFormed())
    throw stop('unreadable', `${database} is not a path SQLite can be given (it is not valid UTF-8)`);
  const pair = examineWalPair(database);
  if (pair.state === 'no-log')
    throw stop('changed-during-inspection', `${files.wal} is gone since it was judged: its last user checkpointed it`);
  if (pair.state === 'refused') throw stop(pair.problem.reason, pair.problem.detail);
  if (request.owner && request.owner.uid !== pair.wal.uid)
    throw stop(
      'foreign-owner',
      `${files.wal} belongs to uid ${pair.wal.uid} now, not to uid ${request.owner.uid}, who was to run the checkpoint`,
    );
  const changed = [
    unchanged(files.wal, planned.wal, pair.wal),
    unchanged(database, planned.database, pair.database),
  ].find((why) => why !== null);
  if (changed) throw stop('changed-during-inspection', changed);
  const youngest = Date.now() - request.minAgeMs;
  for (const [file, seenFile] of [
    [files.wal, pair.wal],
    [files.shm, request.shmAged ? pair.shm : null],
  ] as const)
    if (seenFile && seenFile.mtimeMs >= youngest)
      throw stop(
        'too-recent',
        `${file} was written at ${new Date(seenFile.mtimeMs).toISOString()}, younger than minAge at the last look before the checkpoint`,
      );
  const { processes } = request;
  if (processes && !processes.visible)
    throw stop('liveness-unknown', `processes could not be seen at the last look: ${processes.why ?? 'unknown'}`);
  const holders = processes ? walHolders(processes, files, pair) : [];
  if (holders.length > 0)
    throw stop(
      'in-use',
      `process ${holders.slice(0, 5).join(', ')} opened ${database} (or its log or shared memory) after it was judged`,
    );
  const answer = asOwner(request.owner, () => runCheckpoint(database));
  if (typeof answer === 'string') throw stop('checkpoint-refused', answer);
  const walAfter = lstatOrNullSync(files.wal);
  const databaseAfter = lstatOrNullSync(database);
  if (walAfter && walAfter.size > 0)
    throw stop(
      'checkpoint-refused',
      `SQLite answered (${answer.join(', ')}), but ${files.wal} still holds ${formatBytes(walAfter.size)}`,
    );
  return {
    walBefore: pair.wal.size,
    walAfter: 0,
    databaseBefore: pair.database.size,
    databaseAfter: databaseAfter?.size ?? pair.database.size,
  };
}

/** Why a file is not the one the plan saw, unwritten since; null where it is. */
function unchanged(file: string, planned: SeenFile, now: SeenFile): string | null {
  if (now.dev !== planned.dev || now.ino !== planned.ino) return `${file} was replaced after it was judged`;
  if (now.size !== planned.size || now.mtimeMs !== planned.mtimeMs)
    return `${file} was written after it was judged (${formatBytes(planned.size)} then, ${formatBytes(now.size)} at ${new Date(now.mtimeMs).toISOString()} now)`;
  return null;
}

/**
 * The checkpoint itself: SQLite's answer `[busy, log, checkpointed]` where it is `(0, n, n)`, else
 * the sentence that says what SQLite answered or which error it gave.
 */
function runCheckpoint(database: string): [number, number, number] | string {
  let db: ReturnType<typeof openSqlite>;
  try {
    // Read-write, never created (SQLite's `mode=rw`), waiting on no lock.
    db = openSqlite(database, { fileMustExist: true, timeout: 0 });
  } catch (err) {
    return `SQLite could not open ${database}: ${sqliteWords(err)}; nothing was run`;
  }
  try {
    const row = db.pragma(CHECKPOINT, { simple: false }) as Array<Record<string, unknown>>;
    const busy = Number(row[0]?.busy);
    const log = Number(row[0]?.log);
    const checkpointed = Number(row[0]?.checkpointed);
    const answer: [number, number, number] = [busy, log, checkpointed];
    if (busy === 0 && log >= 0 && log === checkpointed) return answer;
    const why =
      log === -1
        ? 'the database is not in WAL mode'
        : busy !== 0
          ? 'another connection is reading or writing it (it must be quit or restarted first)'
          : 'not every frame of the log reached the database';
    return `SQLite answered (${answer.join(', ')}) to PRAGMA ${CHECKPOINT}: ${why}; nothing else was tried`;
  } catch (err) {
    return `SQLite refused PRAGMA ${CHECKPOINT} on ${database}: ${sqliteWords(err)}; nothing else was tried`;
  } finally {
    try {
      db.close();
    } catch {
      // A close that fails leaves the log as SQLite keeps it: valid, to be checkpointed by its next user.
    }
  }
}

/** SQLite's code and message (`SQLITE_BUSY: database is locked`). */
function sqliteWords(err: unknown): string {
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? `${err.code}: ` : '';
  return `${code}${errorMessage(err)}`;
}
