import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { errorCode, errorMessage } from '../../model/errors.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import { mkdirExclusiveSync, mkdirSync, writeFileExclusiveSync } from '../../safety/fs/write.js';
import { readFileSync } from '../../safety/fs/read.js';
import { asOwner, type Owner } from '../../safety/owners/owner.js';
import { removeTree } from '../../safety/removal/remove.js';
import type { HeartbeatMessage, HeartbeatReply } from './heartbeat-worker.js';
import { Worker } from 'node:worker_threads';
import * as z from 'zod';

/**
 * Kilo's cross-process directory lock, implemented to the same protocol so that Kilo and this
 * tool exclude each other: an atomic mkdir (0700), then `heartbeat` and `meta.json` created
 * exclusively; the holder touches `heartbeat` every 20 s; a lock whose heartbeat (else meta.json,
 * else the folder) is older than 60 s is stale and is broken through a sibling `.breaker` folder;
 * release removes the folder only while meta.json still carries the holder's token.
 */
const STALE_MS = 60_000;
const HEARTBEAT_MS = 20_000;
/**
 * The oldest our heartbeat may be when a removal goes ahead: a beat missed (a thread gone or held
 * up) shows as an older file long before another process may call the lock stale and break it.
 */
const FRESH_ENOUGH_MS = STALE_MS - HEARTBEAT_MS;

export type LockState =
  | { state: 'free' }
  | { state: 'fresh'; ageMs: number; pid?: number; hostname?: string }
  | { state: 'stale'; ageMs: number };

/** What the lock folder says right now (read only). */
export async function inspectLock(lockDir: string, nowMs: number): Promise<LockState> {
  return inspectLockSync(lockDir, nowMs);
}

/** The same, for a check that must not yield (just before a step that cannot be undone). */
export function inspectLockSync(lockDir: string, nowMs: number): LockState {
  const folder = lstatOrNullSync(lockDir);
  if (!folder) return { state: 'free' };
  const heartbeat = lstatOrNullSync(path.join(lockDir, 'heartbeat'));
  const meta = heartbeat ? null : lstatOrNullSync(path.join(lockDir, 'meta.json'));
  const ageMs = nowMs - (heartbeat ?? meta ?? folder).mtimeMs;
  if (ageMs > STALE_MS) return { state: 'stale', ageMs };
  const holder = readMeta(path.join(lockDir, 'meta.json'));
  return { state: 'fresh', ageMs, ...(holder ? { pid: holder.pid, hostname: holder.hostname } : {}) };
}

interface LockMeta {
  token: string;
  pid: number;
  hostname: string;
  createdAt: string;
}

export interface HeldLock {
  lockDir: string;
  token: string;
  /**
   * Throws unless the lock is still ours and its heartbeat fresh enough that no other process can
   * have broken it: called just before the step that cannot be undone.
   */
  assertHeld(): void;
  /** Stops the heartbeat and removes the lock folder if it is still ours. */
  release(): Promise<void>;
}

export class LockBusyError extends Error {
  override name = 'LockBusyError';
}

export interface AcquireOptions {
  owner: Owner | null;
  log: Logger;
  /** How long to keep trying while another process holds the lock. */
  waitMs?: number;
  /** The heartbeat's period (Kilo's 20 s unless a test needs it shorter). */
  heartbeatMs?: number;
}

/**
 * Takes the lock, waiting a little while a live holder has it (a pass never waits as long as
 * Kilo's own five minutes: the next pass tries again). Throws LockBusyError when it stays held.
 */
export async function acquireLock(lockDir: string, options: AcquireOptions): Promise<HeldLock> {
  // The heartbeat thread first: no lock is taken that could not be kept fresh.
  heartbeatThread();
  const until = Date.now() + (options.waitMs ?? 3_000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const token = asOwner(options.owner, () => tryAcquire(lockDir));
    if (token) return hold(lockDir, token, options);
    if (Date.now() >= until) throw new LockBusyError(`the snapshot lock ${lockDir} is held by a live process`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** One attempt; answers the token of the lock taken, or null while someone else holds it. */
function tryAcquire(lockDir: string): string | null {
  mkdirSync(path.dirname(lockDir), 0o755);
  if (!makeFolder(lockDir)) {
    if (!isStaleSync(lockDir)) return null;
    if (!breakStale(lockDir)) return null;
  }
  const token = randomUUID();
  const meta: LockMeta = { token, pid: process.pid, hostname: os.hostname(), createdAt: new Date().toISOString() };
  try {
    writeFileExclusiveSync(path.join(lockDir, 'heartbeat'), '');
    writeFileExclusiveSync(path.join(lockDir, 'meta.json'), JSON.stringify(meta));
  } catch (err) {
    // Someone else wrote into the folder we just made: the lock is compromised; leave it to no one.
    removeTree(lockDir);
    throw new Error(`the snapshot lock ${lockDir} was compromised while taking it: ${errorMessage(err)}`);
  }
  return token;
}

/** Breaks a stale lock and takes it, through the breaker folder that makes breakers exclusive. */
function breakStale(lockDir: string): boolean {
  const breaker = `${lockDir}.breaker`;
  let claimed: boolean;
  try {
    claimed = makeFolder(breaker);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
  if (!claimed) {
    // A breaker left by a process that died while breaking is itself stale after a while.
    const stats = lstatOrNullSync(breaker);
    if (stats && Date.now() - stats.mtimeMs > STALE_MS) removeTree(breaker);
    return false;
  }
  try {
    if (!isStaleSync(lockDir)) return false;
    removeTree(lockDir);
    return makeFolder(lockDir);
  } finally {
    removeTree(breaker);
  }
}

/** Atomic mkdir: true when this call made the folder, false when it already existed. */
function makeFolder(dir: string): boolean {
  try {
    mkdirExclusiveSync(dir, 0o700);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  }
}

function isStaleSync(lockDir: string): boolean {
  const now = Date.now();
  const heartbeat = lstatOrNullSync(path.join(lockDir, 'heartbeat'));
  if (heartbeat) return now - heartbeat.mtimeMs > STALE_MS;
  const meta = lstatOrNullSync(path.join(lockDir, 'meta.json'));
  if (meta) return now - meta.mtimeMs > STALE_MS;
  const folder = lstatOrNullSync(lockDir);
  if (!folder) return false;
  return now - folder.mtimeMs > STALE_MS;
}

/** `meta.json` as Kilo writes it; `createdAt` is only shown, so any value reads as text (but must be there). */
const lockMeta = z.looseObject({
  token: z.string(),
  pid: z.number(),
  hostname: z.string(),
  createdAt: z.unknown().transform((createdAt) => String(createdAt ?? '')),
});

/** The holder `meta.json` names, or null when it is missing, unreadable or not Kilo's shape. */
function readMeta(file: string): LockMeta | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file));
  } catch {
    return null;
  }
  const parsed = lockMeta.safeParse(value);
  if (!parsed.success) return null;
  const { token, pid, hostname, createdAt } = parsed.data;
  return { token, pid, hostname, createdAt };
}

function hold(lockDir: string, token: string, options: AcquireOptions): HeldLock {
  const heartbeat = startHeartbeat(path.join(lockDir, 'heartbeat'), options.heartbeatMs ?? HEARTBEAT_MS);
  let released = false;
  return {
    lockDir,
    token,
    assertHeld() {
      if (released) throw new Error(`the snapshot lock ${lockDir} was already released`);
      const beat = lstatOrNullSync(path.join(lockDir, 'heartbeat'));
      const ageMs = beat ? Date.now() - beat.mtimeMs : null;
      if (ageMs === null || ageMs > FRESH_ENOUGH_MS)
        throw new Error(
          `the snapshot lock ${lockDir} ${ageMs === null ? 'lost its heartbeat file' : `has a heartbeat ${Math.round(ageMs / 1000)}s old`}: it may not be ours for long enough; left alone`,
        );
      if (readMeta(path.join(lockDir, 'meta.json'))?.token !== token)
        throw new Error(
          `the snapshot lock ${lockDir} no longer carries our token: another process holds it; left alone`,
        );
    },
    async release() {
      if (released) return;
      released = true;
      await heartbeat.stop();
      const meta = readMeta(path.join(lockDir, 'meta.json'));
      if (meta?.token !== token) {
        // Someone broke our lock and holds it now: theirs to release, not ours.
        options.log.warn({ lockDir }, 'the snapshot lock no longer carries our token; left to its holder');
        return;
      }
      asOwner(options.owner, () => removeTree(lockDir));
    },
  };
}

// The heartbeats run on a thread of their own (./heartbeat-worker.ts): a removal runs synchronously
// on the main thread and may take longer than the stale window, and the lock must stay fresh all the
// while. One thread serves every lock of the process (starting one costs tens of milliseconds, more
// than many a removal).

/**
 * The compiled worker: beside this module in the compiled tree, and the build's copy when run from
 * the TypeScript sources (the tests).
 */
function heartbeatWorkerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const src = path.resolve(path.dirname(here), '../..');
  const file = here.endsWith('.js')
    ? path.join(path.dirname(here), 'heartbeat-worker.js')
    : path.join(path.dirname(src), 'dist', 'providers', 'kilo', 'heartbeat-worker.js');
  // A worker started from a file that is not there fails on its own thread, later: the lock would
  // be held with no heartbeat. Refused here instead, before the lock is taken.
  if (!lstatOrNullSync(file)) throw new Error(`${file}: the heartbeat worker is not built (npm run build)`);
  return file;
}

interface HeartbeatThread {
  worker: Worker;
  /** Stops not yet acknowledged: once one is, that file is never touched again. */
  stopping: Map<number, () => void>;
}

let thread: HeartbeatThread | null = null;
let nextBeat = 0;

function heartbeatThread(): HeartbeatThread {
  if (thread) return thread;
  const worker = new Worker(heartbeatWorkerFile());
  const started: HeartbeatThread = { worker, stopping: new Map() };
  worker.on('message', (message: HeartbeatReply) => {
    started.stopping.get(message.stopped)?.();
    started.stopping.delete(message.stopped);
    if (started.stopping.size === 0) worker.unref();
  });
  // A thread that is gone touches nothing: every stop waiting on it is done.
  const gone = () => {
    if (thread === started) thread = null;
    for (const done of started.stopping.values()) done();
    started.stopping.clear();
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  worker.unref();
  thread = started;
  return started;
}

function startHeartbeat(file: string, everyMs: number): { stop(): Promise<void> } {
  const beating = heartbeatThread();
  nextBeat += 1;
  const id = nextBeat;
  beating.worker.postMessage({ start: true, id, file, everyMs } satisfies HeartbeatMessage);
  return {
    stop() {
      return new Promise<void>((resolve) => {
        if (thread !== beating) return resolve();
        beating.stopping.set(id, resolve);
        // Kept alive until the thread answers, so a process that has nothing else to do still
        // hears that the heartbeat stopped before it removes the lock.
        beating.worker.ref();
        beating.worker.postMessage({ stop: true, id } satisfies HeartbeatMessage);
      });
    },
  };
}
