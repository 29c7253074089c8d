export interface Owner {
  uid: number;
  gid: number;
}

/**
 * The identity a delete runs as: the owner of the folder it happens in when we are root (so a link
 * planted by that user can never make us remove what the user could not), else ourselves.
 */
export function deleteIdentity(folderUid: number, folderGid: number): Owner | null {
  if (process.geteuid?.() !== 0) return null;
  if (folderUid === 0) return null;
  return { uid: folderUid, gid: folderGid };
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
  process.setgroups([owner.gid]);
  process.setegid(owner.gid);
  process.seteuid(owner.uid);
  try {
    return work();
  } finally {
    process.seteuid(0);
    process.setegid(gid);
    process.setgroups(groups);
  }
}
