import path from 'node:path';
import { lstatOrNullSync, readlinkSync } from '../fs/stat.js';

/** Enough for every link a real path has on its way; a path with more is named by the first ones. */
const MAX_SPELLINGS = 64;
const MAX_DEPTH = 8;

/**
 * Every spelling of a path through the links on its way, as seen from `root` (`/`, or a process's
 * `/proc/<pid>/root`): each link either kept as written or replaced by its target, the target's own
 * links likewise. The path as given comes first; its canonical path is among them. A tool that
 * hashes the text of a path (Kilo's lock names) may have used any of these (rule 25). What cannot
 * be looked at stays as written: it only has fewer spellings.
 */
export function spellingsThroughLinks(root: string, named: string): string[] {
  return [...new Set(spell(root, path.resolve('/', named), 0).all)];
}

function spell(root: string, named: string, depth: number): { all: string[]; canonical: string | null } {
  let all = ['/'];
  let canonical: string | null = '/';
  for (const step of named.split('/').filter((each) => each !== '')) {
    all = all.map((each) => path.join(each, step));
    if (canonical === null) continue;
    const here = path.join(canonical, step);
    const stats = lstatOrNullSafe(path.join(root, here));
    if (!stats?.isSymbolicLink()) {
      canonical = stats ? here : null;
      continue;
    }
    let target: string;
    try {
      target = readlinkSync(path.join(root, here));
    } catch {
      canonical = null;
      continue;
    }
    if (depth >= MAX_DEPTH) {
      canonical = null;
      continue;
    }
    // An absolute target means what it means from the root; a relative one, from the link's folder.
    const through = spell(root, path.resolve(canonical, target), depth + 1);
    all = [...all, ...through.all].slice(0, MAX_SPELLINGS);
    canonical = through.canonical;
  }
  if (canonical !== null && !all.includes(canonical)) all.push(canonical);
  return { all, canonical };
}

function lstatOrNullSafe(at: string) {
  try {
    return lstatOrNullSync(at);
  } catch {
    return null;
  }
}
