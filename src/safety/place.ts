import path from 'node:path';
import { lstatOrNullSync, realpathSync } from './fs/stat.js';

/**
 * Where an entry is on disk, in a form two paths can be compared by whatever way they reach it
 * (a link, `..`, a bind mount): the entry's own identity (device and inode) and the identities of
 * the folders above it. An entry that does not exist is known by its canonical path instead.
 */
export interface Place {
  self: string;
  above: string[];
}

/** Places of many entries, sharing the look at the folders they have in common. */
export function createPlaceFinder(): (entry: string) => Place {
  const folders = new Map<string, string[]>();
  const chain = (folder: string): string[] => {
    const known = folders.get(folder);
    if (known) return known;
    const parent = path.dirname(folder);
    const own = identityOf(folder);
    const found = parent === folder ? [own] : [own, ...chain(parent)];
    folders.set(folder, found);
    return found;
  };
  return (entry) => {
    const absolute = path.resolve(entry);
    let parent: string;
    try {
      parent = realpathSync(path.dirname(absolute));
    } catch {
      return { self: `path:${absolute}`, above: [] };
    }
    const self = path.join(parent, path.basename(absolute));
    return { self: identityOf(self), above: chain(parent) };
  };
}

function identityOf(entry: string): string {
  try {
    const stats = lstatOrNullSync(entry);
    if (stats) return `${stats.dev}:${stats.ino}`;
  } catch {
    // Unreadable: its path is all there is to compare.
  }
  return `path:${entry}`;
}
