import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { readHeadSync } from '../fs/read.js';
import { lstatOrNullSync, type Stats } from '../fs/stat.js';
import { pidsInside, union, type ProcessTable } from '../processes/processes.js';
import { notLocalBecause } from './filesystems.js';

/**
 * A SQLite database in write-ahead-log mode is three files: `<db>`, `<db>-wal` (the log) and
 * `<db>-shm` (the shared memory every connection maps). What is looked at here decides whether a
 * checkpoint may ever be run on them (SYSTEMS.md 9.2): before the plan, and again right before it.
 */
export interface WalFiles {
  database: string;
  wal: string;
  shm: string;
}

export const walFilesOf = (database: string): WalFiles => ({
  database,
  wal: `${database}-wal`,
  shm: `${database}-shm`,
});

/** One of the three files as lstat saw it. */
export interface SeenFile {
  dev: number;
  ino: number;
  uid: number;
  size: number;
  mtimeMs: number;
}

export interface PairProblem {
  reason: 'symlink' | 'foreign-owner' | 'unreadable' | 'orphan-wal' | 'remote-filesystem' | 'mount-point';
  detail: string;
}

export type WalPair =
  /** No log beside the database: its last connection closed cleanly, nothing to reclaim. */
  | { state: 'no-log' }
  /** A log that must never be opened (`orphan-wal`), or a pair that cannot be checkpointed here. */
  | { state: 'refused'; problem: PairProblem; wal: SeenFile | null }
  | { state: 'ready'; database: SeenFile; wal: SeenFile; shm: SeenFile | null };

/** `SQLite format 3\0`: the first 16 bytes of every SQLite database file. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** Header bytes 18 and 19 (the file format's write and read versions): 2 in WAL mode, 1 in rollback mode. */
const WRITE_VERSION = 18;
const READ_VERSION = 19;
const WAL_FORMAT = 2;
const HEADER_BYTES = 100;

const seen = (stats: Stats): SeenFile => ({
  dev: stats.dev,
  ino: stats.ino,
  uid: stats.uid,
  size: stats.size,
  mtimeMs: stats.mtimeMs,
});

/**
 * The three files of `database`, as they are now: a pair SQLite may be given only when the log and
 * the database are regular files (no link) of one owner on one device, the shared memory (if there)
 * too, the database's header says SQLite in WAL mode, and the folder is on a local file system. A
 * log without its database, or beside a file that is no WAL database, is an orphan: SQLite would
 * make a new empty database beside it, or ignore it, and its content would be lost for good. Only
 * lstat and a read of the header: nothing is opened through SQLite here.
 */
export function examineWalPair(database: string): WalPair {
  const files = walFilesOf(database);
  const refused = (reason: PairProblem['reason'], detail: string, wal: SeenFile | null): WalPair => ({
    state: 'refused',
    problem: { reason, detail },
    wal,
  });
  let walStats: Stats | null;
  let databaseStats: Stats | null;
  let shmStats: Stats | null;
  try {
    walStats = lstatOrNullSync(files.wal);
    if (!walStats) return { state: 'no-log' };
    databaseStats = lstatOrNullSync(files.database);
    shmStats = lstatOrNullSync(files.shm);
  } catch (err) {
    return refused('unreadable', `the files of ${database} cannot be looked at: ${errorMessage(err)}`, null);
  }
  if (!walStats.isFile())
    return refused(
      'symlink',
      `${files.wal} is ${walStats.isSymbolicLink() ? 'a symlink' : 'not a regular file'}: SQLite would follow it, so it is never opened`,
      null,
    );
  const wal = seen(walStats);
  if (!databaseStats)
    return refused(
      'orphan-wal',
      `${files.wal} has no database beside it: SQLite would make a new empty ${path.basename(database)} and the log's content would be lost for good, so it is never opened`,
      wal,
    );
  if (databaseStats.isSymbolicLink())
    return refused('symlink', `${database} is a symlink: SQLite would follow it, so its log is never opened`, wal);
  if (!databaseStats.isFile())
    return refused('orphan-wal', `${database}, beside the log ${files.wal}, is not a regular file`, wal);
  if (shmStats && !shmStats.isFile())
    return refused(
      'symlink',
      `${files.shm} is ${shmStats.isSymbolicLink() ? 'a symlink' : 'not a regular file'}: SQLite would follow it, so the database is never opened`,
      wal,
    );
  const others = [databaseStats, ...(shmStats ? [shmStats] : [])];
  const stranger = others.find((stats) => stats.uid !== walStats.uid);
  if (stranger)
    return refused(
      'foreign-owner',
      `${database}, its log and its shared memory are not of one owner (uid ${walStats.uid} and uid ${stranger.uid}): SQLite is never run on them as either`,
      wal,
    );
  if (others.some((stats) => stats.dev !== walStats.dev))
    return refused('mount-point', `${database} and its log are not on one file system (a file mounted over one)`, wal);
  let header: Buffer | null;
  try {
    header = readHeadSync(database, HEADER_BYTES);
  } catch (err) {
    return refused('unreadable', `the header of ${database} cannot be read: ${errorMessage(err)}`, wal);
  }
  const notWal = header === null ? 'gone' : whyNotWal(header);
  if (notWal)
    return refused(
      'orphan-wal',
      `${database} ${notWal}, so the log ${files.wal} beside it is not its to replay: it is never opened`,
      wal,
    );
  const remote = notLocalBecause(path.dirname(database));
  if (remote) return refused('remote-filesystem', remote, wal);
  return { state: 'ready', database: seen(databaseStats), wal, shm: shmStats ? seen(shmStats) : null };
}

/** Why a database's first bytes are no WAL-mode SQLite header, or null where they are one. */
function whyNotWal(header: Buffer): string | null {
  if (header.length < HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC))
    return 'does not start with the SQLite header (empty, encrypted or of another format)';
  const write = header[WRITE_VERSION];
  const read = header[READ_VERSION];
  if (write === WAL_FORMAT && read === WAL_FORMAT) return null;
  if (write === 1 && read === 1) return 'is in rollback-journal mode (header bytes 18 and 19 are 1)';
  return `has header bytes 18 and 19 of ${write} and ${read}, not 2 (WAL)`;
}

/**
 * The processes that hold any of the three files open or mapped: by path (a file deleted while open
 * included) and by device and inode, whatever mount namespace they reach it from (rule 12).
 */
export function walHolders(processes: ProcessTable, files: WalFiles, pair: WalPair): number[] {
  let pids: number[] = [];
  for (const file of [files.database, files.wal, files.shm]) pids = union(pids, pidsInside(processes, file));
  const seenFiles =
    pair.state === 'ready' ? [pair.database, pair.wal, pair.shm] : pair.state === 'refused' ? [pair.wal] : [];
  for (const file of seenFiles) if (file) pids = union(pids, processes.identities.holdersOf(file.dev, file.ino) ?? []);
  return pids;
}
