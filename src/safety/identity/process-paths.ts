import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { statProcLinkSync } from '../fs/stat.js';
import { identityOf } from './recorded.js';
import { framesAbove, resolveFrom, sameIdentity, type Identity, type Resolution } from './resolve.js';

// Rule 25 for a path a process names (its working directory, an environment variable, an
// argument): resolved as that process sees it, through its own root and working directory, and
// found in this pass's view by identity, never by its text.

/** Where a process's own view of the files begins, to resolve a path as it names it. */
export const processRoot = (procRoot: string, pid: number): string => path.join(procRoot, String(pid), 'root');

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
