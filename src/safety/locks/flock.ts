import { errorMessage } from '../../model/errors.js';
import { closeSync, openLockFileSync, type OpenLockFile } from '../fs/descriptors.js';
import { parseHexDevice } from '../fs/device-number.js';
import { readKernelFileSync } from '../fs/read.js';
import { lstatOrNullSync } from '../fs/stat.js';
import { spawn } from 'node:child_process';

/**
 * flock(2) locks of another tool's (Codex's), from Node, which has no flock. A lock is taken by
 * util-linux `flock --nonblock <fd>` run on a descriptor this process opened and hands the child:
 * a flock belongs to the open file description, which the child shares, so the lock stays held by
 * this process's descriptor once the child has exited, and is let go when that descriptor is closed,
 * or when this process dies however it dies. No helper outlives the attempt, nothing ever waits on a
 * lock, and no lock file is ever created: one that is not there is its owner's to make.
 * Node opens descriptors close-on-exec, so no other child of the pass (git) inherits a lock.
 */

/** Locks this pass holds: released together. */
export interface HeldFlocks {
  files: readonly string[];
  /** Throws unless every lock file is still the very file locked (not replaced, not removed). */
  assertStillLocked(): void;
  release(): void;
}

export type FlockAttempt = { held: HeldFlocks } | { busy: string };

/** util-linux flock's exit code where a lock is held elsewhere (`--conflict-exit-code`). */
const BUSY = 75;
/** flock --nonblock answers at once; a child that does not is stopped. */
const ATTEMPT_LIMIT_MS = 10_000;

/**
 * Takes an exclusive flock on each file, in order, without waiting: all of them, or none (the ones
 * taken are let go again) and the first that another process holds. A file that is not there is
 * skipped: it locks nothing. Throws where a file cannot be opened or `flock` cannot be run.
 * `movingWithItem` names lock files inside the item being deleted, which its rename moves.
 */
export async function takeFlocks(
  files: readonly string[],
  options: { movingWithItem?: readonly string[] } = {},
): Promise<FlockAttempt & { missing: string[] }> {
  const opened: Array<OpenLockFile & { file: string }> = [];
  const missing: string[] = [];
  try {
    for (const file of files) {
      const lock = openLockFileSync(file);
      if (lock) opened.push({ ...lock, file });
      else missing.push(file);
    }
    if (opened.length > 0) {
      const busy = await lockDescriptors(opened.map((lock) => lock.fd));
      if (busy !== null) {
        const holder = (opened[busy] as (typeof opened)[number]).file;
        for (const lock of opened.splice(0)) closeSync(lock.fd);
        return { busy: holder, missing };
      }
    }
  } catch (err) {
    for (const lock of opened) closeSync(lock.fd);
    throw err;
  }
  let released = false;
  return {
    missing,
    held: {
      files: opened.map((lock) => lock.file),
      assertStillLocked() {
        if (released) throw new Error(`the locks on ${opened.map((lock) => lock.file).join(', ')} were let go`);
        for (const lock of opened) {
          // A lock file inside the item moves with it into quarantine: the lock on it is still ours.
          if (options.movingWithItem?.includes(lock.file)) continue;
          const now = lstatOrNullSync(lock.file);
          if (!now || now.dev !== lock.dev || now.ino !== lock.ino)
            throw new Error(`${lock.file} was ${now ? 'replaced' : 'removed'} while its lock was held here`);
        }
      },
      release() {
        if (released) return;
        released = true;
        for (const lock of opened) closeSync(lock.fd);
      },
    },
  };
}

/**
 * One child, `sh`, runs `flock --nonblock` on each descriptor in turn (3, 4, …); answers null when
 * every lock is taken, else the index of the first one another process holds.
 */
function lockDescriptors(fds: readonly number[]): Promise<number | null> {
  const script =
    'i=0; for fd do flock --nonblock --conflict-exit-code 75 "$fd" || { c=$?; echo "$i"; exit $c; }; i=$((i+1)); done';
  const numbers = fds.map((_, k) => String(3 + k));
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script, 'sh', ...numbers], {
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe', ...fds],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), ATTEMPT_LIMIT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`flock could not be run: ${errorMessage(error)}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const index = Number(out.trim());
      if (code === 0) resolve(null);
      else if (code === BUSY && Number.isInteger(index) && index >= 0 && index < fds.length) resolve(index);
      else
        reject(
          new Error(
            `util-linux flock failed (${signal ?? `exit ${code}`}): ${err.trim().split('\n').pop() || 'no message'}`,
          ),
        );
    });
  });
}

/** One lock on a file, as /proc/locks shows it: its holder's pid (-1 for an open file description's lock) and kind. */
export interface LockHolder {
  pid: number;
  kind: string;
}

/** Which files hold a lock of any process right now, from /proc/locks: read only, nothing is taken. */
export interface LockTable {
  /**
   * Whether the file (by device and inode) has a lock on it: false for one that is not there, null
   * where /proc/locks could not be read (nothing may be concluded then).
   */
  isLocked(file: string): boolean | null;
  /** The holders of locks on the file of this device and inode; null where /proc/locks could not be read. */
  holdersOf(dev: number, ino: number): LockHolder[] | null;
  /** Why a lock's state cannot be told, where it cannot. */
  unreadable?: string;
}

/**
 * Reads /proc/locks once (flock, POSIX and open file description locks alike, each named by device
 * and inode). A lock shows there only when its holder is visible in the pass's PID namespace: a pass
 * that cannot see every process is blind (rule 19) and deletes nothing anyway, and every deletion
 * takes the lock itself first (takeFlocks), which no namespace hides.
 */
export function readLockTable(procRoot = '/proc'): LockTable {
  let text: string;
  try {
    text = readKernelFileSync(`${procRoot}/locks`);
  } catch (err) {
    const unreadable = `${procRoot}/locks cannot be read: ${errorMessage(err)}`;
    return { isLocked: () => null, holdersOf: () => null, unreadable };
  }
  const holders = parseLockTable(text);
  return {
    isLocked(file) {
      try {
        const stats = lstatOrNullSync(file);
        return stats?.isFile() === true && holders.has(`${stats.dev}:${stats.ino}`);
      } catch {
        // A lock file that cannot be looked at tells nothing either way.
        return null;
      }
    },
    holdersOf: (dev, ino) => holders.get(`${dev}:${ino}`) ?? [],
    unreadable: 'it cannot be looked at',
  };
}

/**
 * The holders of each locked file, by `dev:ino`, from the text of /proc/locks:
 * `N: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> <start> <end>`, major and minor in hex.
 * Lines of blocked waiters (`N: -> …`) hold nothing.
 */
export function parseLockTable(text: string): Map<string, LockHolder[]> {
  const holders = new Map<string, LockHolder[]>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6 || fields[1] === '->') continue;
    const identity = fields[5]?.split(':');
    if (identity?.length !== 3) continue;
    const dev = parseHexDevice(`${identity[0]}:${identity[1]}`);
    if (Number.isNaN(dev)) continue;
    const key = `${dev}:${identity[2]}`;
    holders.set(key, [...(holders.get(key) ?? []), { pid: Number(fields[4]), kind: fields[1] ?? '' }]);
  }
  return holders;
}
