import path from 'node:path';
import { lstatOrNullSync } from '../fs/stat.js';

export interface Owner {
  uid: number;
  gid: number;
}

const STICKY = 0o1000;

interface Ownership {
  uid: number;
  gid: number;
}

/**
 * The identity that takes an entry out of its folder when we are root (the rename into quarantine,
 * the removal of the emptied top; what is inside goes as the item's owner, itemIdentity): whoever
 * may remove the entry from its folder, so a link planted by that user can never make us remove
 * what the user could not. That is the folder's owner; in a sticky folder of root's (/tmp,
 * /var/tmp) it is the entry's own owner. Null means "as we are" (not root, or the one who may
 * remove it is root).
 */
export function deleteIdentity(parent: Ownership & { mode: number }, entry: Ownership): Owner | null {
  if (process.geteuid?.() !== 0) return null;
  const sticky = (parent.mode & STICKY) !== 0;
  const who = sticky && parent.uid === 0 ? entry : parent;
  if (who.uid === 0) return null;
  return { uid: who.uid, gid: who.gid };
}

/**
 * The identity an item is emptied as when we are root (rule 20): its one owner, the owner of its
 * top folder, whoever may take it out of the folder it sits in (deleteIdentity). Null means "as we
 * are" (not root, or the item is root's).
 */
export function itemIdentity(entry: Ownership): Owner | null {
  if (process.geteuid?.() !== 0 || entry.uid === 0) return null;
  return { uid: entry.uid, gid: entry.gid };
}

/**
 * Why `who` could not remove `target` from the folder it sits in, or null when it could (or `who`
 * is null: as we are). Read afresh. Removing an entry takes writing in the folder and entering it,
 * by the owner's, the group's or everyone's bits as the kernel picks them for an identity with no
 * supplementary groups (asOwner gives it none), and, in a sticky folder, owning the folder or the
 * entry. A target or folder that is gone is left to the checks that look for that.
 */
export function cannotRemoveFrom(target: string, who: Owner | null): string | null {
  if (!who) return null;
  const folder = path.dirname(target);
  const entry = lstatOrNullSync(target);
  const parent = lstatOrNullSync(folder);
  if (!entry || !parent) return null;
  const shift = parent.uid === who.uid ? 6 : parent.gid === who.gid ? 3 : 0;
  const writable = ((parent.mode >> shift) & 0o3) === 0o3;
  const sticky = (parent.mode & STICKY) !== 0;
  if (writable && (!sticky || who.uid === parent.uid || who.uid === entry.uid)) return null;
  const mode = (parent.mode & 0o7777).toString(8).padStart(4, '0');
  return `${target} sits in ${folder} (uid ${parent.uid}, mode ${mode}), a folder its owner (uid ${who.uid}) cannot remove it from`;
}

/**
 * Why `git worktree remove`, run as `who` (gitIdentityFor), could not take the worktree and its
 * admin entry out of the folders they sit in, or null. git would remove what is inside, then stop
 * at the folder itself: a worktree without its files, or without its admin entry (rule 23).
 */
export function worktreeRemovalBlocked(worktree: string, adminDir: string, who: Owner | null): string | null {
  const why = cannotRemoveFrom(worktree, who) ?? cannotRemoveFrom(adminDir, who);
  return why && `git worktree remove would run as its owner, uid ${who?.uid}, but ${why}`;
}

/**
 * Who a git process over a worktree runs as when we are root: the owner of the home it was found
 * in (rule 20), as the resolver of locations answered it, never whoever a link led to. `git status`
 * and `git hash-object` run the clean filters a repository's config names (`filter.<x>.clean`,
 * `filter.<x>.process`); run as root over another user's worktree, that would run the user's
 * program as root. A worktree folder of a third user's (neither the home's owner's nor root's) is
 * refused before anything in it is deleted; git over it runs as that user, so that no program its
 * config names ever runs as anyone else. Without a home's owner, the folder's own owner. Null: as
 * we are (not root, or the one to run as is root).
 */
export function gitIdentityFor(worktree: string, homeOwner?: Owner): Owner | null {
  if (process.geteuid?.() !== 0) return null;
  const stats = lstatOrNullSync(worktree);
  const folder = stats && stats.uid !== 0 ? { uid: stats.uid, gid: stats.gid } : null;
  if (!homeOwner) return folder;
  if (folder && folder.uid !== homeOwner.uid) return folder;
  return homeOwner.uid === 0 ? null : homeOwner;
}

/**
 * Runs `work` with the effective uid and gid (and no supplementary groups) of `owner`. Linux
 * drops the effective capabilities while the effective uid is not 0, so the kernel checks every
 * unlink as that user's; they come back when the uid returns to 0. Synchronous on purpose: no
 * other work of this process may run under the borrowed identity.
 */
export function asOwner<T>(owner: Owner | null, work: () => T): T {
  if (!owner || !process.seteuid || !process.setegid || !process.setgroups || !process.getgroups) return work();
  const groups = process.getgroups();
  const gid = process.getegid?.() ?? 0;
  // The folder the pass started in may be one the owner cannot enter (root's 0700 home): work
  // that steps through folders as the owner ends wherever it can, and root walks back here.
  const startedIn = process.cwd();
  process.setgroups([owner.gid]);
  process.setegid(owner.gid);
  process.seteuid(owner.uid);
  try {
    return work();
  } finally {
    process.seteuid(0);
    process.setegid(gid);
    process.setgroups(groups);
    if (process.cwd() !== startedIn) process.chdir(startedIn);
  }
}
