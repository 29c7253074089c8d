import { chownSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemAt } from '../../helpers/pass.js';
import { fromRootOnlyFolder } from '../../helpers/private-cwd.js';
import { addKiloWorktree, makeSnapshot, pinOf, refExists, removeKiloWorktree } from './fixtures.js';
import { runKilo, scene } from './scene.js';

const USER = 4321;
const isRoot = process.getuid?.() === 0;

function chownTree(target: string, uid: number, gid: number): void {
  chownSync(target, uid, gid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) {
    const child = path.join(target, name);
    if (lstatSync(child).isSymbolicLink()) continue;
    chownTree(child, uid, gid);
  }
}

function ownersBelow(target: string, found = new Set<number>()): Set<number> {
  found.add(lstatSync(target).uid);
  if (lstatSync(target).isDirectory())
    for (const name of readdirSync(target)) ownersBelow(path.join(target, name), found);
  return found;
}

describe("run as root over another user's home", () => {
  it.skipIf(!isRoot)(
    "deletes as the owner: Kilo's lock, the removal and the pin are all the user's doing",
    async () => {
      const s = scene();
      const gone = addKiloWorktree(s.repo, 'gone');
      const repo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
      removeKiloWorktree(s.repo, gone);
      chownTree(s.root, USER, USER);

      // Started in a folder the user cannot enter, as a pass run from root's home would be.
      const { report, exitCode } = await fromRootOnlyFolder(() => runKilo(s));

      expect(exitCode).toBe(0);
      expect(itemAt(report, repo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
      expect(existsSync(repo)).toBe(false);
      expect(refExists(s.repo, pinOf(repo))).toBe(false);
      // Whatever the pass made in the user's tree (Kilo's lock folder) belongs to the user, not to root.
      expect([...ownersBelow(s.root)]).toEqual([USER]);
      expect(existsSync(path.join(s.state, 'locks'))).toBe(true);
    },
  );
});
