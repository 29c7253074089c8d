import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIdentityFor } from '../../../src/safety/owners/owner.js';
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
});
