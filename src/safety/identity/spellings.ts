import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNullSync, readlinkSync, realpathSync, statProcLinkSync } from '../fs/stat.js';
import { framesAbove, resolveFrom, sameIdentity, type Identity, type Resolution } from './resolve.js';

/**
 * A path a process names (a variable of its environment), resolved as that process sees it:
 * through its own `/proc/<pid>/root`, a relative one from its `/proc/<pid>/cwd` (rule 25). A
 * process that has ended names nothing any more: `missing`, with no chain.
 */
function resolveAsProcess(procRoot: string, pid: number, named: string): Resolution {
  const dir = path.join(procRoot, String(pid));
  const root = path.join(dir, 'root');
  try {
    if (statProcLinkSync(root) === null) return { state: 'missing', chain: [], rest: named };
  } catch (err) {
    return { state: 'unknown', why: `${root} cannot be looked at: ${errorMessage(err)}` };
  }
  if (path.isAbsolute(named)) return resolveFrom(root, named);
  const start = framesAbove(path.join(dir, 'cwd'), root);
  if ('why' in start) return { state: 'unknown', why: start.why };
  return resolveFrom(root, named, { start });
}

/** Where a folder a process names is in this pass's own view. */
export type Placed =
  /** The same folder (by identity), at this path here. */
  | { state: 'found'; path: string }
  /** Nothing there as the process sees it (or the process has ended). */
  | { state: 'absent' }
  /** It cannot be resolved, or it is not the same folder here (another mount namespace). */
  | { state: 'unknown'; why: string };

/**
 * The folder a process names (`CLAUDE_CONFIG_DIR`), found in this pass's view: resolved through
 * the process's own root and working directory, then matched by device and inode to the same
 * spelling here (`cwd` is its working directory as /proc shows it). A folder that is elsewhere in
 * this view (a container's path) is unknown, never another folder read in its place.
 */
export function placeInOurView(procRoot: string, pid: number, named: string, cwd: string): Placed {
  const theirs = resolveAsProcess(procRoot, pid, named);
  if (theirs.state === 'unknown') return theirs;
  if (theirs.state === 'missing') return { state: 'absent' };
  const here = path.resolve(cwd, named);
  const ours = identityOf(here);
  if (ours !== null && theirs.chain[0] && sameIdentity(ours, theirs.chain[0])) return { state: 'found', path: here };
  return {
    state: 'unknown',
    why: `${named}, as process ${pid} sees it, is not ${here} in this pass's view (another mount namespace?)`,
  };
}

/**
 * Whether a path a process names is the file of `identity` (its `PWD` and its working directory):
 * null where that cannot be told, which counts as a match (rule 25).
 */
export function processPathIs(procRoot: string, pid: number, named: string, identity: Identity): boolean | null {
  const theirs = resolveAsProcess(procRoot, pid, named);
  if (theirs.state === 'unknown') return null;
  return theirs.state === 'found' && theirs.chain[0] !== undefined && sameIdentity(theirs.chain[0], identity);
}

/** The canonical path in this view of `named`, when it is the file of `identity`; else null. */
export function canonicalIfSame(named: string, identity: Identity): string | null {
  try {
    const canonical = realpathSync(named);
    const stats = statProcLinkSync(canonical);
    return stats && sameIdentity({ dev: stats.dev, ino: stats.ino }, identity) ? canonical : null;
  } catch {
    return null;
  }
}

/** A path another program recorded, in this view: its canonical spelling, nothing there, or not to be told. */
export type Canonical = { state: 'found'; path: string } | { state: 'missing' } | { state: 'unknown'; why: string };

/**
 * The canonical path of a path another program recorded (a registry record's `cwd`): every link
 * followed; `unknown` where a link leads to nothing (a disk not mounted here) or an entry cannot
 * be looked at, so that a comparison with it counts as a match (rule 25).
 */
export function canonicalOf(named: string): Canonical {
  const resolved = resolveFrom(path.sep, named);
  if (resolved.state === 'unknown') return resolved;
  if (resolved.state === 'missing') return { state: 'missing' };
  try {
    return { state: 'found', path: realpathSync(named) };
  } catch (err) {
    return { state: 'unknown', why: `${named} cannot be resolved: ${errorMessage(err)}` };
  }
}

/** The identity of a file of this machine's view (following links), or null where it cannot be looked at. */
export function identityOf(at: string): Identity | null {
  try {
    const stats = statProcLinkSync(at);
    return stats ? { dev: stats.dev, ino: stats.ino } : null;
  } catch {
    return null;
  }
}

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

/**
 * Whether `named`, as seen from `root`, is the folder `folder` is (rule 25): `same`, `other`, or
 * `unknown` when it cannot be told (a comparison with it then counts as a match).
 */
export function sameFolderFrom(root: string, named: string, folder: Identity): 'same' | 'other' | 'unknown' {
  const reached = resolveFrom(root, named);
  if (reached.state === 'unknown') return 'unknown';
  if (reached.state === 'missing') return 'other';
  const [itself] = reached.chain;
  return itself && sameIdentity(itself, folder) ? 'same' : 'other';
}

/** Where a process's own view of the files begins, to resolve a path as it names it. */
export const processRoot = (procRoot: string, pid: number): string => path.join(procRoot, String(pid), 'root');
