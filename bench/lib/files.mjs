import { lutimesSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Deterministic filler: real files of varied sizes, cheap to write (one shared buffer). */
const FILLER = Buffer.from(
  '{"type":"message","role":"assistant","content":"lorem ipsum dolor sit amet"}\n'.repeat(256),
);

/** A size between 200 B and about 4 KB, the same for the same seed. */
function sizeFor(seed) {
  const x = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return 200 + (x % 3900);
}

export function writeSized(file, seed) {
  writeFileSync(file, FILLER.subarray(0, sizeFor(seed)));
}

export function ensureDir(dir) {
  mkdirSync(dir, { recursive: true });
}

export function put(file, content) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** Sets atime and mtime of a tree (links themselves, never their targets), children first. */
export function backdateTree(root, when) {
  const folders = [root];
  const order = [];
  while (folders.length > 0) {
    const dir = folders.pop();
    order.push(dir);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) folders.push(full);
      else lutimesSync(full, when, when);
    }
  }
  for (let i = order.length - 1; i >= 0; i -= 1) lutimesSync(order[i], when, when);
}

/** Counts the entries (files, links and folders, the root excluded) of a tree. */
export function countEntries(root) {
  let count = 0;
  const folders = [root];
  while (folders.length > 0) {
    const dir = folders.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      count += 1;
      if (entry.isDirectory()) folders.push(path.join(dir, entry.name));
    }
  }
  return count;
}

export function exists(p) {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
