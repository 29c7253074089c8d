import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { spawnLiving, waitFor } from '../../helpers/processes.js';

/** Quotes a path for `sh -c`. */
export const quoted = (p: string): string => `'${p.replace(/'/g, `'\\''`)}'`;

/**
 * A real process in a mount namespace of its own (`unshare --mount`, whose mounts are private, so
 * the host never sees them) running `script` under sh; it should end by `exec`ing the program the
 * test waits for. Killed after the test, and its namespace and mounts go with it.
 */
export async function inMountNamespace(script: string, command: string): Promise<ChildProcess> {
  const child = spawnLiving('unshare', ['--mount', 'sh', '-c', `set -e; ${script}`]);
  await runningAs(child, command);
  return child;
}

/** Waits until `child` has exec'd `command` (its /proc comm), or fails if it exited first. */
export async function runningAs(child: ChildProcess, command: string): Promise<void> {
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the process exited ${child.exitCode} before running ${command}`);
    try {
      return readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim() === command;
    } catch {
      return false;
    }
  });
}

/** Kills a child and waits until the kernel has reaped it (its namespace is then gone too). */
export async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await waitFor(() => !existsSync(`/proc/${child.pid}`));
}

const hostMounts: string[] = [];

/** `mount --bind from to` in this process's own namespace; unmounted after the file's tests. */
export function bindOnHost(from: string, to: string): void {
  execFileSync('mount', ['--bind', from, to]);
  hostMounts.push(to);
}

export function unmountOnHost(): void {
  for (const target of hostMounts.splice(0).reverse()) {
    try {
      execFileSync('umount', ['--lazy', target]);
    } catch {
      // Already unmounted.
    }
  }
}

afterAll(unmountOnHost);

/** A "container": a PID namespace with its own /proc in a mount namespace of its own, running sleep as its init. */
export async function container(): Promise<{ init: number; unshare: ChildProcess }> {
  const unshare = spawnLiving('unshare', [
    '--pid',
    '--fork',
    '--kill-child',
    '--mount',
    '--mount-proc',
    'sleep',
    '600',
  ]);
  let init = 0;
  await waitFor(() => {
    try {
      const children = readFileSync(`/proc/${unshare.pid}/task/${unshare.pid}/children`, 'utf8').trim();
      init = Number(children.split(' ')[0]);
      return init > 0 && readFileSync(`/proc/${init}/comm`, 'utf8').trim() === 'sleep';
    } catch {
      return false;
    }
  });
  return { init, unshare };
}
