import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cannotRemoveFrom, gitIdentityFor, worktreeRemovalBlocked } from '../../../src/safety/owners/owner.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';

const isRoot = process.geteuid?.() === 0;

describe.runIf(isRoot)('who git runs as over a worktree, run as root (rule 20)', () => {
  const [a, b] = isRoot ? (addUsers(2) as [RealUser, RealUser]) : ([] as never);
  const owner = (user: RealUser) => ({ uid: user.uid, gid: user.gid });

  it("runs as the home's owner, whoever owns the folder, but for a third user's folder, which runs as that user", () => {
    const dir = tempDir('aj-git-identity-');
    const folder = (name: string, user: RealUser | null) => {
      const at = path.join(dir, name);
      mkdirSync(at);
      if (user) giveTo(at, user);
      return at;
    };
    const own = folder('own', a);
    const roots = folder('roots', null);
    const theirs = folder('theirs', b);

    expect(gitIdentityFor(own, owner(a))).toEqual(owner(a));
    // A folder of root's a link of A's led to: A's repository's programs never run as root.
    expect(gitIdentityFor(roots, owner(a))).toEqual(owner(a));
    // A folder of B's in A's home: refused before anything is deleted; its programs run as B alone.
    expect(gitIdentityFor(theirs, owner(a))).toEqual(owner(b));
    // Root's own home and folder: as we are.
    expect(gitIdentityFor(roots, { uid: 0, gid: 0 })).toBeNull();
    // No home known: the folder's own owner, as before.
    expect(gitIdentityFor(own)).toEqual(owner(a));
    expect(gitIdentityFor(roots)).toBeNull();
    expect(gitIdentityFor(path.join(dir, 'missing'), owner(a))).toEqual(owner(a));
  });

  it('may take a folder out of the folder it sits in only where the kernel lets that owner, with no other group', () => {
    const dir = tempDir('aj-remove-from-');
    /** `<dir>/<name>/entry`: the folder owned by `folderUid:folderGid` with `mode`, the entry by `entryUid`. */
    const entryIn = (name: string, folderUid: number, folderGid: number, mode: number, entryUid: number) => {
      const folder = path.join(dir, name);
      const entry = path.join(folder, 'entry');
      mkdirSync(entry, { recursive: true });
      chownSync(entry, entryUid, entryUid);
      chownSync(folder, folderUid, folderGid);
      chmodSync(folder, mode);
      return entry;
    };
    const cannot = (entry: string, folderUid: number, mode: string, who: RealUser) =>
      `${entry} sits in ${path.dirname(entry)} (uid ${folderUid}, mode ${mode}), a folder its owner (uid ${who.uid}) cannot remove it from`;

    expect(cannotRemoveFrom(entryIn('own', a.uid, a.gid, 0o755, a.uid), owner(a))).toBeNull();
    const roots = entryIn('roots', 0, 0, 0o755, a.uid);
    expect(cannotRemoveFrom(roots, owner(a))).toBe(cannot(roots, 0, '0755', a));
    // As root (null: as we are), anything may be removed.
    expect(cannotRemoveFrom(roots, null)).toBeNull();
    const readOnly = entryIn('own-read-only', a.uid, a.gid, 0o555, a.uid);
    expect(cannotRemoveFrom(readOnly, owner(a))).toBe(cannot(readOnly, a.uid, '0555', a));
    // Root's folder open to the owner's group, or to everyone.
    expect(cannotRemoveFrom(entryIn('group', 0, a.gid, 0o775, a.uid), owner(a))).toBeNull();
    expect(cannotRemoveFrom(entryIn('everyone', 0, 0, 0o777, a.uid), owner(a))).toBeNull();
    // A sticky folder (/tmp): an entry of one's own, or any entry of a folder of one's own; not root's.
    expect(cannotRemoveFrom(entryIn('sticky', 0, 0, 0o1777, a.uid), owner(a))).toBeNull();
    expect(cannotRemoveFrom(entryIn('own-sticky', a.uid, a.gid, 0o1777, b.uid), owner(a))).toBeNull();
    const rootsInSticky = entryIn('roots-sticky', 0, 0, 0o1777, 0);
    expect(cannotRemoveFrom(rootsInSticky, owner(a))).toBe(cannot(rootsInSticky, 0, '1777', a));

    // git worktree remove takes the worktree and its admin entry: either folder stops it.
    const worktree = entryIn('worktree', a.uid, a.gid, 0o755, a.uid);
    const admin = entryIn('admin', 0, 0, 0o755, a.uid);
    expect(worktreeRemovalBlocked(worktree, admin, owner(a))).toBe(
      `git worktree remove would run as its owner, uid ${a.uid}, but ${cannot(admin, 0, '0755', a)}`,
    );
    expect(worktreeRemovalBlocked(worktree, path.join(dir, 'own', 'entry'), owner(a))).toBeNull();
  });
});
