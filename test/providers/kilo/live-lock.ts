import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

const HOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lock-holder.mjs');
const WAITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lock-waiter.mjs');
const living: ChildProcess[] = [];

/** The environment a Kilo Code process started with: `HOME` as given (or none), and nothing else of this machine's. */
function kiloEnv(home: string | null): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(home === null ? {} : { HOME: home }) };
}

export interface LiveLock {
  pid: number;
  lockDir: string;
  /** Lets the lock go as Kilo does (SIGTERM: the holder removes its folder), and waits until it has. */
  release(): Promise<void>;
}

/**
 * A real process holding Kilo's snapshot lock `lockDir` with a fresh heartbeat, as a live Kilo Code
 * whose `$HOME` is `home` does (null: no `$HOME` at all); run as `user` where given.
 */
export async function holdKiloLock(
  lockDir: string,
  home: string | null,
  user?: { uid: number; gid: number },
): Promise<LiveLock> {
  const dir = tempDir('aj-kilo-holder-');
  if (user) chownSync(dir, user.uid, user.gid);
  const ready = path.join(dir, 'ready');
  const holder = spawn(process.execPath, [HOLDER, lockDir, ready], {
    stdio: 'ignore',
    env: kiloEnv(home),
    cwd: '/',
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  living.push(holder);
  await waitFor(() => {
    if (holder.exitCode !== null) throw new Error(`the lock holder exited ${holder.exitCode}`);
    return existsSync(ready);
  });
  return {
    pid: holder.pid as number,
    lockDir,
    async release() {
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A real process running the waiter side of Kilo's lock on `lockDir` (test/providers/kilo/lock-waiter.mjs),
 * as a Kilo Code whose `$HOME` is `home`; ready once it waits for the lock folder to appear.
 */
export async function waitForKiloLock(
  lockDir: string,
  gitdir: string,
  home: string,
): Promise<{ result: string; exited: Promise<number | null> }> {
  const dir = tempDir('aj-kilo-waiter-');
  const result = path.join(dir, 'waiter.json');
  const ready = path.join(dir, 'waiter.ready');
  const waiter = spawn(process.execPath, [WAITER, lockDir, gitdir, result, ready], {
    stdio: 'ignore',
    env: kiloEnv(home),
    cwd: '/',
  });
  living.push(waiter);
  const exited = new Promise<number | null>((resolve) => waiter.once('exit', (code) => resolve(code)));
  await waitFor(() => existsSync(ready));
  return { result, exited };
}

afterEach(() => {
  for (const child of living.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
