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
 * The identity a delete runs as when we are root: whoever may remove the entry from its folder, so
 * a link planted by that user can never make us remove what the user could not. That is the
 * folder's owner; in a sticky folder of root's (/tmp, /var/tmp) it is the entry's own owner. Null
 * means "as we are" (not root, or the one who may remove it is root).
 */
export function deleteIdentity(parent: Ownership & { mode: number }, entry: Ownership): Owner | null {
  if (process.geteuid?.() !== 0) return null;
  const sticky = (parent.mode & STICKY) !== 0;
  const who = sticky && parent.uid === 0 ? entry : parent;
  if (who.uid === 0) return null;
  return { uid: who.uid, gid: who.gid };
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
