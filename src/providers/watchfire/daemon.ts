import type { Stats } from '../../safety/fs/stat.js';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readLockTable, type LockTable } from '../../safety/locks/flock.js';
import { isProcessAlive } from '../../safety/processes/processes.js';
import { readSettled } from './stable-read.js';
import { parseDaemonPid } from './state.js';

/** Whether the Watchfire daemon of one root is alive, and the evidence for it. */
export interface DaemonLiveness {
  live: boolean;
  /** One sentence naming the evidence. */
  why: string;
}

type LockState = { state: 'held'; by: string } | { state: 'free' } | { state: 'unknown'; why: string };

async function daemonLockState(lockFile: string, locks: LockTable): Promise<LockState> {
  let stats: Stats | null;
  try {
    stats = await lstatOrNull(lockFile);
  } catch (err) {
    return { state: 'unknown', why: `${lockFile} cannot be examined: ${errorMessage(err)}` };
  }
  if (!stats) return { state: 'free' };
  // A link's own inode is not the file the daemon locks.
  if (!stats.isFile()) return { state: 'unknown', why: `${lockFile} is not a regular file` };
  const held = locks.holdersOf(stats.dev, stats.ino);
  if (held === null)
    return { state: 'unknown', why: `whether ${lockFile} is locked cannot be told: ${locks.unreadable}` };
  const others = held.filter((holder) => holder.pid !== process.pid);
  if (others.length === 0) return { state: 'free' };
  return { state: 'held', by: others.map((holder) => `${holder.kind} lock of pid ${holder.pid}`).join(', ') };
}

type PidState =
  | { state: 'alive'; pid: number }
  | { state: 'dead'; pid: number }
  | { state: 'none' }
  | { state: 'unknown'; why: string };

async function daemonPidState(daemonFile: string): Promise<PidState> {
  let text: string | null;
  let pid: number;
  try {
    text = await readSettled(daemonFile);
    if (text === null) return { state: 'none' };
    pid = parseDaemonPid(text, daemonFile);
  } catch (err) {
    return { state: 'unknown', why: errorMessage(err) };
  }
  return isProcessAlive(pid) ? { state: 'alive', pid } : { state: 'dead', pid };
}

/**
 * The daemon is live when another process holds `daemon.lock` or `daemon.yaml`'s pid is alive.
 * Evidence that cannot be read counts as live: wrongly thinking a daemon is dead is what could
 * cost a running session its home.
 */
export async function daemonLiveness(
  lockFile: string,
  daemonFile: string,
  locks: LockTable = readLockTable(),
): Promise<DaemonLiveness> {
  const lock = await daemonLockState(lockFile, locks);
  if (lock.state === 'held') return { live: true, why: `daemon.lock is held (${lock.by})` };
  const pid = await daemonPidState(daemonFile);
  if (pid.state === 'alive') return { live: true, why: `daemon.yaml names pid ${pid.pid}, which is alive` };
  if (lock.state === 'unknown') return { live: true, why: `taken as live: ${lock.why}` };
  if (pid.state === 'unknown') return { live: true, why: `taken as live: ${pid.why}` };
  const pidPart = pid.state === 'dead' ? `daemon.yaml's pid ${pid.pid} is dead` : 'there is no daemon.yaml';
  return { live: false, why: `nobody holds daemon.lock and ${pidPart}` };
}
