import { lstatSync, lutimesSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes a file, making its folders. */
export function put(file: string, content: string | Buffer = 'x'): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** Sets the mtime (and atime) of a path and everything below it, links included, to `when`. */
export function backdate(target: string, when: Date): void {
  const pending = [target];
  const all: string[] = [];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    all.push(current);
    const stats = lstatSync(current);
    if (stats.isDirectory()) for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
  // Children first: touching a child does not change its folder's mtime, but be explicit anyway.
  for (const entry of all.reverse()) lutimesSync(entry, when, when);
}

export const DAY = 86_400_000;
export const daysAgo = (days: number): Date => new Date(Date.now() - days * DAY);
