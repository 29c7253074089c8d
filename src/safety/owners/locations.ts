import path from 'node:path';
import type { Stats } from '../fs/stat.js';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNullSync, readlinkSync, realpathSync } from '../fs/stat.js';
import { isInside } from '../inside.js';
import type { LocationBasis } from './location-basis.js';
import type { Owner } from './owner.js';
import { whose } from '../processes/user-names.js';

/** Where a provider reads, as the resolver answers it. */
export type Located =
  /** `path` is the location as it was named (links and all): every link on it was checked. */
  | { state: 'found'; path: string; owner: Owner }
  /** Nothing there (or no folder): the tool is not installed here. */
  | { state: 'absent'; path: string }
  /** A link (or a folder) on the way belongs to another user: nothing of it is read. */
  | { state: 'refused'; path: string; owner: Owner; detail: string }
  /** An entry on the way cannot be looked at (EACCES, ELOOP): `detail` says which and why. */
  | { state: 'unreadable'; path: string; detail: string };

const ROOT: Owner = { uid: 0, gid: 0 };

/**
 * Resolves a location one entry at a time, never following a link by itself: from its home when
 * it lies inside it, else from `/`. A link is followed only when the folder it leads to belongs to
 * the location's owner or to root, and from the first folder of the owner's on (the home itself,
 * for a location inside it), every folder on the way and the location itself must be the owner's
 * or root's. Another user's files are never read as the owner's, whoever runs the pass. Folders
 * above the owner's own (`/srv`, a group's shared folder) may be anyone's: they are the host's
 * layout, and no link through them is followed unchecked. `kind: 'file'` resolves a file (a
 * database, a settings file) the same way, the file being the last entry.
 */
export function locate(location: string, basis: LocationBasis, kind: 'folder' | 'file' = 'folder'): Located {
  const target = path.resolve(location);
  const start = startOf(target, basis);
  if (!start) return { state: 'absent', path: target };
  const walk = new Walk(target, start);
  const steps = path
    .relative(start.from, target)
    .split(path.sep)
    .filter((step) => step !== '');
  let real = start.real;
  let named = start.from;
  for (const [index, step] of steps.entries()) {
    named = path.join(named, step);
    const last = index === steps.length - 1;
    const entry = path.join(real, step);
    const found = walk.step(named, entry, last && kind === 'file');
    if (found.state !== 'found') return found;
    real = found.real;
  }
  if (steps.length === 0 && kind === 'file') return { state: 'absent', path: target };
  return { state: 'found', path: target, owner: walk.owner ?? ROOT };
}

/** The owner of a home: the owner of the folder it names (a home the operator names is taken as named). */
export function homeOwner(home: string): Owner | null {
  const stats = followed(path.resolve(home));
  return stats?.isDirectory() ? { uid: stats.uid, gid: stats.gid } : null;
}

interface Start {
  /** Where the walk starts, as named. */
  from: string;
  /** The same folder, canonical. */
  real: string;
  owner: Owner | null;
  /** The owner's gid is known (a uid a layout names gets the gid of the first folder it owns). */
  gidKnown: boolean;
  /** The walk is inside the owner's own folders from its first step (a location inside its home). */
  claimed: boolean;
  /** Whose the owner is, in words, for a refusal. */
  of: string;
}

function startOf(target: string, basis: LocationBasis): Start | null {
  if ('home' in basis) {
    const home = path.resolve(basis.home);
    const owner = homeOwner(home);
    if (!owner) return null;
    const of = `the owner of ${home}`;
    if (!isInside(home, target)) return { ...TOP, owner, gidKnown: true, claimed: false, of };
    const real = canonicalOrNull(home);
    return real ? { from: home, real, owner, gidKnown: true, claimed: true, of } : null;
  }
  if ('owner' in basis) return { ...TOP, owner: basis.owner, gidKnown: true, claimed: false, of: basis.of };
  const uid = basis.outside.uid;
  return uid === undefined
    ? { ...TOP, owner: null, gidKnown: false, claimed: false, of: '' }
    : { ...TOP, owner: { uid, gid: uid }, gidKnown: false, claimed: false, of: `uid ${uid}, the one its layout names` };
}

const TOP = { from: path.sep, real: path.sep } as const;

type Step = { state: 'found'; real: string } | Exclude<Located, { state: 'found' }>;

/** The walk of one location: who owns it, once that is known, and whether it is among the owner's own folders yet. */
class Walk {
  owner: Owner | null;
  private claimed: boolean;
  private of: string;
  private gidKnown: boolean;

  constructor(
    private readonly target: string,
    start: Start,
  ) {
    this.owner = start.owner;
    this.claimed = start.claimed;
    this.of = start.of;
    this.gidKnown = start.gidKnown;
  }

  step(named: string, entry: string, file: boolean): Step {
    const absent = { state: 'absent', path: this.target } as const;
    const own = lookAt(entry, named, this.target);
    if (!own || 'state' in own) return own ?? absent;
    let stats = own;
    let real = entry;
    if (stats.isSymbolicLink()) {
      // The first entry not root's names the owner of a location outside every home: a link of its
      // user's, whose target must then be theirs too.
      if (this.owner === null && stats.uid !== 0) this.learn(stats, named);
      // A link is judged by its own owner as well as its target's (rule 28): another user's link in
      // a shared folder (`/tmp`) may point at this owner's own files.
      if (!this.allowed(stats.uid))
        return this.refuse(
          `${named} is a link made by ${whose(stats.uid)}, not by ${whose((this.owner as Owner).uid)} (${this.of}) or root: not followed`,
        );
      const to = canonicalOrNull(entry);
      // A link to nothing is a disk not mounted here, never a tool that is not installed (rule 27).
      if (to === null)
        return {
          state: 'unreadable',
          path: this.target,
          detail: `${named} is a link to ${linkTargetOf(entry)}, which is not there (a disk not mounted here?)`,
        };
      const reached = lookAt(to, named, this.target);
      if (!reached || 'state' in reached) return reached ?? absent;
      if (!this.allowed(reached.uid))
        return this.refuse(
          `${named} is a link to ${to}, which belongs to ${whose(reached.uid)}, not to ${whose((this.owner as Owner).uid)} (${this.of}): not followed`,
        );
      stats = reached;
      real = to;
    }
    if (file ? stats.isDirectory() : !stats.isDirectory()) return absent;
    if (this.owner === null) {
      if (stats.uid !== 0) this.learn(stats, named);
    } else if (stats.uid === this.owner.uid) {
      this.claimed = true;
      if (!this.gidKnown) {
        this.owner = { uid: stats.uid, gid: stats.gid };
        this.gidKnown = true;
      }
    } else if (stats.uid !== 0 && (this.claimed || named === this.target)) {
      return this.refuse(
        `${named} belongs to ${whose(stats.uid)}, not to ${whose(this.owner.uid)} (${this.of}): not read`,
      );
    }
    return { state: 'found', real };
  }

  private learn(stats: Stats, named: string): void {
    this.owner = { uid: stats.uid, gid: stats.gid };
    this.gidKnown = true;
    this.claimed = true;
    this.of = `the owner of ${named}`;
  }

  private allowed(uid: number): boolean {
    return uid === 0 || this.owner === null || uid === this.owner.uid;
  }

  private refuse(detail: string): Extract<Located, { state: 'refused' }> {
    return { state: 'refused', path: this.target, owner: this.owner ?? ROOT, detail };
  }
}

/** The entry's own stats, null when it is not there, or why it cannot be looked at. */
function lookAt(
  entry: string,
  named: string,
  target: string,
): Stats | null | Extract<Located, { state: 'unreadable' }> {
  try {
    return lstatOrNullSync(entry);
  } catch (err) {
    return { state: 'unreadable', path: target, detail: `${named} cannot be looked at: ${errorMessage(err)}` };
  }
}

function linkTargetOf(entry: string): string {
  try {
    return readlinkSync(entry);
  } catch (err) {
    return `something that cannot be read (${errorMessage(err)})`;
  }
}

function canonicalOrNull(entry: string): string | null {
  try {
    return realpathSync(entry);
  } catch {
    return null;
  }
}

function followed(entry: string): Stats | null {
  const real = canonicalOrNull(entry);
  if (real === null) return null;
  const stats = lookAt(real, entry, entry);
  return stats && !('state' in stats) ? stats : null;
}
