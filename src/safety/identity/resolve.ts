import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import type { Stats } from '../fs/stat.js';
import { lstatSync, readlinkSync, statProcLinkSync } from '../fs/stat.js';
import { isInside } from '../inside.js';

/** A file as the kernel knows it, whatever path reaches it. */
export interface Identity {
  dev: number;
  ino: number;
}

/**
 * Where another program's path leads, as identities:
 * - `found`: the path exists; `chain` is its identity, then each folder above it up to its root;
 * - `missing`: part of it does not exist (a folder deleted since the record was written); `chain` is
 *   the deepest folder of it that does, then the folders above;
 * - `unknown`: it cannot be told (a link to a target that is missing or not mounted here, a folder
 *   the pass may not search, a link the pass may not follow): any comparison with it counts as a match.
 */
export type Resolution =
  | { state: 'found'; chain: Identity[] }
  | { state: 'missing'; chain: Identity[]; rest: string }
  | { state: 'unknown'; why: string };

/** One folder on the way: where the pass reaches it, and what it is. */
interface Frame {
  at: string;
  id: Identity;
}

/** Whether a link may be followed (rule 20), or why not. */
export type LinkCheck = (link: { named: string; stats: Stats }) => string | null;

const MAX_LINKS = 40;

/**
 * Resolves `named` one entry at a time from a root the pass reaches it through: `/` for a path of
 * this machine's view, `/proc/<pid>/root` for a path as a process sees it (a container's
 * `/workspace`, a home reached through a link). Links are followed by hand, an absolute target from
 * that same root, so a link inside a container means what it means there; `..` never climbs above
 * the root. `start` is where a relative path begins (a process's working directory), as frames.
 */
export function resolveFrom(
  root: string,
  named: string,
  options: {
    start?: readonly Frame[];
    linkCheck?: LinkCheck;
    /**
     * What a link to nothing is: `unknown` for a path a record names (a disk not mounted here), or
     * `missing` for one a process names through its own root (what is not mounted for it does not
     * exist for it either).
     */
    dangling?: 'unknown' | 'missing';
  } = {},
): Resolution {
  const top = frameOf(root);
  if ('why' in top) return { state: 'unknown', why: top.why };
  let stack: Frame[] = path.isAbsolute(named) || !options.start ? [top] : [...options.start];
  const pending = components(named);
  let links = 0;
  // While more steps are pending than this, the steps are a link's target: the outermost link followed.
  let link: { named: string; after: number } | null = null;
  while (pending.length > 0) {
    if (link && pending.length <= link.after) link = null;
    const step = pending.shift() as string;
    if (step === '..') {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const here = stack[stack.length - 1] as Frame;
    const entry = here.at.endsWith('/') ? `${here.at}${step}` : `${here.at}/${step}`;
    let stats: Stats;
    try {
      stats = lstatSync(entry);
    } catch (err) {
      const code = errorCode(err);
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        return { state: 'unknown', why: `${shown(root, entry)} cannot be looked at: ${errorMessage(err)}` };
      // A link whose target is not there: a disk not mounted here, never a record that is absent.
      if (link && options.dangling !== 'missing')
        return {
          state: 'unknown',
          why: `${link.named} is a link to something that is not there (a disk not mounted here?)`,
        };
      return { state: 'missing', chain: chainOf(stack), rest: [step, ...pending].join('/') };
    }
    if (stats.isSymbolicLink()) {
      links += 1;
      if (links > MAX_LINKS) return { state: 'unknown', why: `${named}: too many links on the way` };
      const refused = options.linkCheck?.({ named: shown(root, entry), stats });
      if (refused) return { state: 'unknown', why: refused };
      let target: string;
      try {
        target = readlinkSync(entry);
      } catch (err) {
        return { state: 'unknown', why: `${shown(root, entry)} cannot be read: ${errorMessage(err)}` };
      }
      link ??= { named: shown(root, entry), after: pending.length };
      if (path.isAbsolute(target)) stack = [top];
      pending.unshift(...components(target));
      continue;
    }
    stack.push({ at: entry, id: { dev: stats.dev, ino: stats.ino } });
    if (!stats.isDirectory() && pending.length > 0) {
      if (link && options.dangling !== 'missing')
        return { state: 'unknown', why: `${link.named} is a link through a file` };
      return { state: 'missing', chain: chainOf(stack.slice(0, -1)), rest: [step, ...pending].join('/') };
    }
  }
  return { state: 'found', chain: chainOf(stack) };
}

/**
 * The frames of a folder reached through a kernel link (`/proc/<pid>/cwd`): the folder, then each
 * folder above it, by `..` from the link itself, so that no spelling of it is needed, up to `root`
 * (`/proc/<pid>/root`): the pass is not confined to a process's root, so its `..` would climb out
 * of a container where the process's own `..` stays. Null when it cannot be looked at.
 */
export function framesAbove(link: string, root?: string): Frame[] | { why: string } {
  const top = root === undefined ? null : frameOf(root);
  if (top && 'why' in top) return top;
  const frames: Frame[] = [];
  let at = link;
  for (let depth = 0; depth < 4096; depth += 1) {
    const here = frameOf(at);
    if ('why' in here) return here;
    const last = frames[frames.length - 1];
    if (last && sameIdentity(last.id, here.id)) break;
    frames.push(here);
    if (top && sameIdentity(top.id, here.id)) break;
    at = `${at}/..`;
  }
  return frames.reverse();
}

function frameOf(at: string): Frame | { why: string } {
  try {
    const stats = statProcLinkSync(at);
    if (!stats) return { why: `${at} is gone` };
    return { at, id: { dev: stats.dev, ino: stats.ino } };
  } catch (err) {
    return { why: `${at} cannot be looked at: ${errorMessage(err)}` };
  }
}

export const sameIdentity = (a: Identity, b: Identity): boolean => a.dev === b.dev && a.ino === b.ino;

/** The identities of a stack, the deepest first. */
function chainOf(stack: readonly Frame[]): Identity[] {
  return stack.map((frame) => frame.id).reverse();
}

function components(named: string): string[] {
  return named.split('/').filter((step) => step !== '' && step !== '.');
}

/** An entry as a person reads it: without the `/proc/<pid>/root` it was reached through. */
function shown(root: string, entry: string): string {
  return isInside(root, entry) ? path.join('/', path.relative(root, entry)) : entry;
}

export type { Frame };
