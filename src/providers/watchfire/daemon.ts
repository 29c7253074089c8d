import type { Stats } from '../../safety/fs/stat.js';
import { errorMessage } from '../../core/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readFile } from '../../safety/fs/read.js';
import { isProcessAlive } from '../../safety/processes/processes.js';
import { readSettled } from './stable-read.js';
import { parseDaemonPid } from './state.js';

/** Whether the Watchfire daemon of one root is alive, and the evidence for it. */
export interface DaemonLiveness {
  live: boolean;
  /** One sentence naming the evidence. */
  why: string;
}

export interface LockHolder {
  pid: number;
  kind: string;
}

/**
 * The holders of locks on the file with this device and inode, read from /proc/locks:
 * `N: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> <start> <end>`, major and minor in hex.
 * Lines of blocked waiters (`N: -> …`) name no holder.
 */
export function lockHolders(procLocks: string, dev: number, ino: number): LockHolder[] {
  const major = devMajor(dev);
  const minor = devMinor(dev);
  const holders: LockHolder[] = [];
  for (const line of procLocks.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6 || fields[1] === '->') continue;
    const [kind, , , pidText, where] = fields.slice(1);
    const parts = (where ?? '').split(':');
    if (parts.length !== 3) continue;
    const [maj, min, inode] = parts as [string, string, string];
    if (parseInt(maj, 16) === major && parseInt(min, 16) === minor && inode === String(ino)) {
      holders.push({ pid: Number(pidText), kind: kind ?? '' });
    }
  }
  return holders;
}

/** glibc's dev_t split: major in bits 8-19 and 32-43, minor in bits 0-7 and 20-31 (of the 12-bit-shifted value). */
export function devMajor(dev: number): number {
  const value = BigInt(dev);
  return Number(((value >> 8n) & 0xfffn) | ((value >> 32n) & ~0xfffn));
}

export function devMinor(dev: number): number {
  const value = BigInt(dev);
  return Number((value & 0xffn) | ((value >> 12n) & ~0xffn));
}

type LockState = { state: 'held'; by: string } | { state: 'free' } | { state: 'unknown'; why: string };

async function daemonLockState(lockFile: string, procLocks: string): Promise<LockState> {
  let stats: Stats | null;
  try {
    stats = await lstatOrNull(lockFile);
  } catch (err) {
    return { state: 'unknown', why: `${lockFile} cannot be examined: ${errorMessage(err)}` };
  }
  if (!stats) return { state: 'free' };
  // A link's own inode is not the file the daemon locks.
  if (!stats.isFile()) return { state: 'unknown', why: `${lockFile} is not a regular file` };
  let table: string;
  try {
    table = await readFile(procLocks);
  } catch (err) {
    return { state: 'unknown', why: `${procLocks} cannot be read: ${errorMessage(err)}` };
  }
  const others = lockHolders(table, stats.dev, stats.ino).filter((holder) => holder.pid !== process.pid);
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
  procLocks = '/proc/locks',
): Promise<DaemonLiveness> {
  const lock = await daemonLockState(lockFile, procLocks);
  if (lock.state === 'held') return { live: true, why: `daemon.lock is held (${lock.by})` };
  const pid = await daemonPidState(daemonFile);
  if (pid.state === 'alive') return { live: true, why: `daemon.yaml names pid ${pid.pid}, which is alive` };
  if (lock.state === 'unknown') return { live: true, why: `taken as live: ${lock.why}` };
  if (pid.state === 'unknown') return { live: true, why: `taken as live: ${pid.why}` };
  const pidPart = pid.state === 'dead' ? `daemon.yaml's pid ${pid.pid} is dead` : 'there is no daemon.yaml';
  return { live: false, why: `nobody holds daemon.lock and ${pidPart}` };
}
