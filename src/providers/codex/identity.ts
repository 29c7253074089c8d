import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import { lstatOrNullSync, realpathSync } from '../../safety/fs/stat.js';
import {
  resolveFrom,
  sameIdentity,
  type Identity,
  type LinkCheck,
  type Resolution,
} from '../../safety/identity/resolve.js';
import { whose } from '../../safety/processes/user-names.js';

// A path Codex recorded (a thread's cwd, a worktree root in config.toml) is compared with one of
// the pass's by identity as well as by text (rule 25): `~/.codex` may be a link to a data disk, and
// Codex writes the canonical path.

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

/** A folder of the pass's own, as an identity; null where it cannot be looked at. */
export function identityOf(folder: string): Identity | null {
  try {
    const stats = lstatOrNullSync(folder);
    return stats ? { dev: stats.dev, ino: stats.ino } : null;
  } catch {
    return null;
  }
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
