import path from 'node:path';
import { expandHomes } from '../../config/homes.js';
import { durationMs } from '../../config/duration.js';
import type { GatherContext } from '../../core/types.js';
import { lstatOrNull, readdirOrEmpty, realpath } from '../../safety/fs.js';

export interface SetRoot {
  set: string;
  idleAfter: string;
  idleAfterMs: number;
  /** A folder whose direct children are worktrees. */
  root: string;
}

/**
 * Every root of every configured set, after `~/` (once per home) and glob expansion, that is a
 * folder. A root that does not exist is a tool not used here: no entry, no error.
 */
export async function setRoots(ctx: GatherContext): Promise<SetRoot[]> {
  const found: SetRoot[] = [];
  const seen = new Set<string>();
  for (const set of ctx.config.providers.worktrees.sets) {
    const patterns = set.roots.flatMap((root) =>
      root === '~' || root.startsWith('~/') ? ctx.homes.map((home) => path.join(home, root.slice(1))) : [root],
    );
    for (const root of await expandHomes(patterns)) {
      if (seen.has(root) || !(await isFolder(root))) continue;
      seen.add(root);
      found.push({ set: set.name, idleAfter: set.idleAfter, idleAfterMs: durationMs(set.idleAfter), root });
    }
  }
  return found;
}

async function isFolder(root: string): Promise<boolean> {
  const stats = await lstatOrNull(root);
  if (stats?.isDirectory()) return true;
  if (!stats?.isSymbolicLink()) return false;
  // A configured root may be a link the administrator made (a tool's folder on another disk).
  try {
    return (await lstatOrNull(await realpath(root)))?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** The direct children of a root that are linked worktrees: real folders with a `.git` file. */
export async function worktreesIn(root: string): Promise<string[]> {
  const children: string[] = [];
  for (const entry of await readdirOrEmpty(root)) {
    if (!entry.isDirectory()) continue;
    const child = path.join(root, entry.name);
    if ((await lstatOrNull(path.join(child, '.git')))?.isFile()) children.push(child);
  }
  return children.sort();
}
