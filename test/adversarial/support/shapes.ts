import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { waitFor } from '../../helpers/processes.js';

export { deepChain } from '../../helpers/fs-fixtures.js';

/** Dates everything under `root` (links themselves) to `when`, but for the trees in `skip`. */
export function ageExcept(root: string, when: Date, skip: readonly string[]): void {
  const pending = [root];
  const all: string[] = [];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    all.push(current);
    if (skip.includes(current)) continue;
    if (lstatSync(current).isDirectory())
      for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
  for (const entry of all.reverse()) lutimesSync(entry, when, when);
}

/** The leaf at the bottom of a deep chain, read with relative steps; null when the chain is broken. */
export function readDeepLeaf(root: string, depth: number): string | null {
  const home = process.cwd();
  try {
    process.chdir(root);
    for (let i = 0; i < depth; i += 1) process.chdir('d');
    return readFileSync('leaf', 'utf8');
  } catch {
    return null;
  } finally {
    process.chdir(home);
  }
}

/** `count` entries in one folder: symlinks to `target` (one system call each, the fastest entry to make). */
export function wideFolder(dir: string, count: number, target: string): void {
  mkdirSync(dir, { recursive: true });
  const home = process.cwd();
  try {
    process.chdir(dir);
    for (let i = 0; i < count; i += 1) symlinkSync(target, `e${i}`);
    closeSync(openSync('plain-file', 'w'));
  } finally {
    process.chdir(home);
  }
}

export function mkfifo(p: string): void {
  const result = spawnSync('mkfifo', [p]);
  if (result.status !== 0) throw new Error(`mkfifo ${p}: ${result.stderr}`);
}

export function mknod(p: string, type: 'c' | 'b', major: number, minor: number): void {
  const result = spawnSync('mknod', [p, type, String(major), String(minor)]);
  if (result.status !== 0) throw new Error(`mknod ${p}: ${result.stderr}`);
}

/** A unix socket file left by a listener that died without cleaning up (as a crashed agent leaves one). */
export async function deadSocket(p: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(${JSON.stringify(p)}); setInterval(() => {}, 1000)`],
    { stdio: 'ignore' },
  );
  try {
    await waitFor(() => {
      try {
        return readFileSync('/proc/net/unix', 'utf8').includes(p);
      } catch {
        return false;
      }
    });
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
  }
}
