import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { decodeBytes, encodeText } from '../../src/safety/fs/names.js';

const SLASH = Buffer.from('/');

export interface Entry {
  type: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mtimeMs: number;
  hash?: string;
  link?: string;
}

/**
 * Every entry below `root` with its type, size, mtime and content hash, never following a link.
 * Two inventories compare equal exactly when nothing in the tree changed. Names are read as bytes:
 * a key holds each byte that is not UTF-8 as its lone surrogate (src/safety/fs/names.ts), so two
 * names never share a key and every entry is reached whatever its name.
 */
export function inventory(root: string, options: { exclude?: string[] } = {}): Map<string, Entry> {
  const exclude = (options.exclude ?? []).map((entry) => path.resolve(entry));
  const out = new Map<string, Entry>();
  const pending = [encodeText(root)];
  while (pending.length > 0) {
    const dir = pending.pop() as Buffer;
    for (const name of readdirSync(dir, { encoding: 'buffer' })) {
      const full = Buffer.concat([dir, SLASH, name]);
      const text = decodeBytes(full);
      if (exclude.some((excluded) => text === excluded || text.startsWith(excluded + path.sep))) continue;
      const stats = lstatSync(full);
      const key = path.relative(root, text);
      if (stats.isSymbolicLink())
        out.set(key, {
          type: 'link',
          size: stats.size,
          mtimeMs: stats.mtimeMs,
          link: decodeBytes(readlinkSync(full, { encoding: 'buffer' })),
        });
      else if (stats.isDirectory()) {
        out.set(key, { type: 'dir', size: 0, mtimeMs: stats.mtimeMs });
        pending.push(full);
      } else if (stats.isFile()) {
        const hash = createHash('sha256').update(readFileSync(full)).digest('hex');
        out.set(key, { type: 'file', size: stats.size, mtimeMs: stats.mtimeMs, hash });
      } else out.set(key, { type: 'other', size: stats.size, mtimeMs: stats.mtimeMs });
    }
  }
  return out;
}

/** The entries of `before` that are missing or different in `after`, and the ones added. */
export function diffInventories(
  before: Map<string, Entry>,
  after: Map<string, Entry>,
): { removed: string[]; changed: string[]; added: string[] } {
  const removed: string[] = [];
  const changed: string[] = [];
  const added: string[] = [];
  for (const [key, entry] of before) {
    const now = after.get(key);
    if (!now) removed.push(key);
    else if (JSON.stringify(now) !== JSON.stringify(entry)) changed.push(key);
  }
  for (const key of after.keys()) if (!before.has(key)) added.push(key);
  return { removed: removed.sort(), changed: changed.sort(), added: added.sort() };
}
