import { lstatSync, lutimesSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeText } from '../../src/safety/fs/names.js';

/** Writes a file, making its folders. */
export function put(file: string, content: string | Buffer = 'x'): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/**
 * Sets the mtime (and atime) of a path and everything below it, links included, to `when`. Names
 * are taken as bytes, so a name that is not UTF-8 is aged like any other.
 */
export function backdate(target: string | Buffer, when: Date): void {
  const pending = [typeof target === 'string' ? encodeText(target) : target];
  const all: Buffer[] = [];
  while (pending.length > 0) {
    const current = pending.pop() as Buffer;
    all.push(current);
    const stats = lstatSync(current);
    if (stats.isDirectory())
      for (const name of readdirSync(current, { encoding: 'buffer' }))
        pending.push(Buffer.concat([current, Buffer.from('/'), name]));
  }
  // Children first: touching a child does not change its folder's mtime, but be explicit anyway.
  for (const entry of all.reverse()) lutimesSync(entry, when, when);
}

const DAY = 86_400_000;
export const daysAgo = (days: number): Date => new Date(Date.now() - days * DAY);

/**
 * A chain of `depth` folders named `d` under `root`, with `leaf` holding `content` at the bottom,
 * everything in it dated `when`. Built with relative steps: the full path is far longer than
 * PATH_MAX, and a shell loop that names the whole path each time is quadratic.
 */
export function deepChain(root: string, depth: number, content: string, when: Date): void {
  mkdirSync(root, { recursive: true });
  const home = process.cwd();
  try {
    process.chdir(root);
    for (let i = 0; i < depth; i += 1) {
      mkdirSync('d');
      process.chdir('d');
    }
    writeFileSync('leaf', content);
    lutimesSync('leaf', when, when);
    for (let i = 0; i < depth; i += 1) {
      process.chdir('..');
      lutimesSync('d', when, when);
    }
  } finally {
    process.chdir(home);
  }
}
