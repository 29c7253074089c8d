import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import { lstatOrNullSync, realpathSync, statProcLinkSync } from '../fs/stat.js';
import { whose } from '../processes/user-names.js';
import { resolveFrom, sameIdentity, type Identity, type LinkCheck, type Resolution } from './resolve.js';

// Rule 25 for a path another program recorded (a database row, a registry record, a config file):
// resolved on this machine, every link followed within its owner's boundaries, and compared with a
// path of the pass's by identity as well as by text. What cannot be resolved counts as a match.

/** Rule 20 for a recorded path: a link on it is followed only when it and what it leads to are `uid`'s or root's. */
function ownersLinks(uid: number): LinkCheck {
  return ({ named, stats }) => {
    if (stats.uid !== 0 && stats.uid !== uid)
      return `${named} is a link made by ${whose(stats.uid)}, not by ${whose(uid)}: not followed`;
    let target: string;
    try {
      target = realpathSync(named);
    } catch (err) {
      // A link to nothing: the resolver answers that it cannot be told (a disk not mounted here).
      if (errorCode(err) === 'ENOENT') return null;
      return `${named} cannot be followed: ${errorMessage(err)}`;
    }
    const reached = lstatOrNullSync(target);
    if (reached && reached.uid !== 0 && reached.uid !== uid)
      return `${named} leads to ${target}, which belongs to ${whose(reached.uid)}, not to ${whose(uid)}: not followed`;
    return null;
  };
}

/** Where a recorded path leads on this machine, its links checked for `uid`; a relative one cannot be told. */
export function resolveRecorded(recorded: string, uid: number): Resolution {
  if (!path.isAbsolute(recorded))
    return { state: 'unknown', why: `${JSON.stringify(recorded)} is not an absolute path` };
  return resolveFrom('/', recorded, { linkCheck: ownersLinks(uid) });
}

/**
 * Whether a recorded path is `folder` or lies inside it: `folder` is in its chain (for a path whose
 * end no longer exists, the chain of its deepest folder that does). One that cannot be resolved
 * counts as inside: the item stays.
 */
export function liesIn(folder: Identity, recorded: Resolution): boolean {
  if (recorded.state === 'unknown') return true;
  return recorded.chain.some((each) => sameIdentity(each, folder));
}

/**
 * Whether two roots may hold the same worktrees: the same folder, or one inside the other. `root`
 * is one the pass found; a recorded root that cannot be resolved may be any.
 */
export function mayOverlap(root: Resolution & { state: 'found' }, recorded: Resolution): boolean {
  if (recorded.state === 'unknown') return true;
  const top = root.chain[0] as Identity;
  if (recorded.chain.some((each) => sameIdentity(each, top))) return true;
  // A recorded root that is missing lies in no folder of ours: only a found one can be above it.
  return recorded.state === 'found' && root.chain.some((each) => sameIdentity(each, recorded.chain[0] as Identity));
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
