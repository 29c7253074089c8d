import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { addUsers, giveTo } from '../../helpers/users.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { addKiloWorktree, lockDirOf, makeSnapshot, pinOf, refExists, removeKiloWorktree } from './fixtures.js';
import { holdKiloLock, waitForKiloLock } from './live-lock.js';
import {
  expectOnlyGarbageGone,
  expectOnlyRemoved,
  linkedScene,
  runKilo,
  snapshotOf,
  type LinkedScene,
} from './scene.js';

/**
 * Kilo Code names a repository's snapshot lock `sha1("snapshot:" + <git dir>)` of its git folder's
 * path as Kilo Code spelled it: through its `$HOME`, which may be a link to the home the pass
 * names canonically, or the other way round. Rule 25: the lock is looked up under every spelling,
 * and a held lock the pass cannot attribute to one repository keeps every repository it could be
 * of. Real homes behind a real link, real locks held by real processes with a fresh heartbeat.
 */

/** Two live checkpoint repositories of Kilo Code, each with the garbage a `git add` killed mid-pack left. */
async function twoLiveRepositories(s: LinkedScene) {
  const other = addKiloWorktree(s.repo, 'other');
  const first = makeSnapshot(s.data, s.projectId, s.repo);
  const second = makeSnapshot(s.data, s.projectId, other);
  return {
    first,
    second,
    firstGarbage: (await killGitMidPack({ gitDir: first, workTree: s.repo })).tmpPack,
    secondGarbage: (await killGitMidPack({ gitDir: second, workTree: other })).tmpPack,
  };
}

/** A pass over the home as the pass names it: canonically, or through the link. */
const passOver = (s: LinkedScene, home: string) => runKilo({ ...s, home });

/** The same path as a pass that names the home through the link reports it. */
const reportedThroughLink = (s: LinkedScene, p: string) => s.throughLink(p);

describe("Kilo Code's snapshot lock under another spelling of the repository's path", () => {
  it("a Kilo Code whose $HOME is a link to the home holds one repository: that one's garbage stays, naming the lock; the other's goes", async () => {
    const s = linkedScene('kilo');
    const made = await twoLiveRepositories(s);
    const held = await holdKiloLock(lockDirOf(s.state, s.throughLink(made.first)), s.link);
    const before = snapshotOf(s);

    const { report } = await passOver(s, s.home);

    const kept = itemAt(report, made.firstGarbage);
    expect(kept).toMatchObject({ kind: 'git-garbage', verdict: 'refused', reason: 'kilo-lock-held' });
    expect(kept.detail).toContain(
      `the snapshot lock ${held.lockDir} in Kilo Code's state folder is held by pid ${held.pid}`,
    );
    const second = itemAt(report, made.secondGarbage);
    expect(second, second.detail).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expectOnlyGarbageGone(s, before, [made.secondGarbage]);
    expect(existsSync(held.lockDir)).toBe(true);

    await held.release();
    const released = snapshotOf(s);
    const again = await passOver(s, s.home);
    expect(itemAt(again.report, made.firstGarbage)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expectOnlyGarbageGone(s, released, [made.firstGarbage]);
  }, 120_000);

  it('a Kilo Code that spelled the home canonically, while the pass names it through the link (no $HOME to read)', async () => {
    const s = linkedScene('kilo');
    const made = await twoLiveRepositories(s);
    const held = await holdKiloLock(lockDirOf(s.state, made.first), null);
    const before = snapshotOf(s);

    const { report } = await passOver(s, s.link);

    const kept = itemAt(report, reportedThroughLink(s, made.firstGarbage));
    expect(kept).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(kept.detail).toContain(`is held by pid ${held.pid}`);
    expect(kept.detail).toContain(path.basename(held.lockDir));
    expect(itemAt(report, reportedThroughLink(s, made.secondGarbage))).toMatchObject({ verdict: 'deleted' });
    expectOnlyGarbageGone(s, before, [made.secondGarbage]);
  }, 120_000);

  it('a Kilo Code of the home the passwd database names for its owner (the link), while the pass names it canonically', async () => {
    const s = linkedScene('kilo');
    const made = await twoLiveRepositories(s);
    const [user] = addUsers(1, { home: s.link });
    if (!user) throw new Error('no user was made');
    giveTo(s.root, user);
    // The holder has no $HOME: only the passwd database says how Kilo Code spells the home.
    const held = await holdKiloLock(lockDirOf(s.state, s.throughLink(made.first)), null, user);
    const before = snapshotOf(s);

    const { report } = await passOver(s, s.home);

    expect(itemAt(report, made.firstGarbage)).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(itemAt(report, made.firstGarbage).detail).toContain(held.lockDir);
    expect(itemAt(report, made.secondGarbage)).toMatchObject({ verdict: 'deleted' });
    expectOnlyGarbageGone(s, before, [made.secondGarbage]);
  }, 120_000);

  it('a held lock that no spelling of any repository names keeps every repository of the state folder, naming the lock', async () => {
    const s = linkedScene('kilo');
    const made = await twoLiveRepositories(s);
    const gone = addKiloWorktree(s.repo, 'gone');
    const dead = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    // A Kilo Code in a container whose home the pass cannot see: its $HOME leads nowhere here.
    const unseen = '/nonexistent-container-home';
    const spelled = path.join(unseen, '.local', 'share', 'kilo', 'snapshot', s.projectId, path.basename(made.first));
    const held = await holdKiloLock(lockDirOf(s.state, spelled), unseen);
    const before = snapshotOf(s);

    const { report } = await passOver(s, s.home);

    for (const item of [made.firstGarbage, made.secondGarbage, dead].map((p) => itemAt(report, p))) {
      expect(item).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
      expect(item.detail).toContain(`the lock ${held.lockDir} in Kilo Code's state folder is held by pid ${held.pid}`);
      expect(item.detail).toContain('may be this repository');
    }
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
    expect(refExists(s.repo, pinOf(dead))).toBe(true);

    await held.release();
    const released = snapshotOf(s);
    const again = await passOver(s, s.home);
    expect(itemAt(again.report, dead)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    for (const garbage of [made.firstGarbage, made.secondGarbage])
      expect(itemAt(again.report, garbage)).toMatchObject({ verdict: 'deleted' });
    expectOnlyRemoved(
      s,
      released,
      snapshotOf(s),
      [dead, made.firstGarbage, made.secondGarbage],
      [path.join(s.repo, '.git', pinOf(dead))],
    );
  }, 120_000);

  it('deletes a dead repository under its lock of every spelling: a Kilo Code spelling it through the link waits for the pass', async () => {
    const s = linkedScene('kilo');
    const gone = addKiloWorktree(s.repo, 'gone');
    const dead = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    const lockDir = lockDirOf(s.state, s.throughLink(dead));
    const waiter = await waitForKiloLock(lockDir, dead, s.link);
    const before = snapshotOf(s);

    const { report } = await passOver(s, s.home);

    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(await waiter.exited).toBe(0);
    const seen = JSON.parse(readFileSync(waiter.result, 'utf8')) as {
      holders: Array<{ pid: number }>;
      heldChecks: number;
      acquired: boolean;
      gitdirWhenAcquired: boolean;
    };
    // It found the lock of its own spelling held by this pass, waited, and got it once the repository was gone.
    expect(seen.heldChecks).toBeGreaterThan(0);
    expect(seen.holders.map((holder) => holder.pid)).toEqual([process.pid]);
    expect(seen).toMatchObject({ acquired: true, gitdirWhenAcquired: false });
    expect(existsSync(lockDir)).toBe(false);
    expect(existsSync(lockDirOf(s.state, dead))).toBe(false);
    expectOnlyRemoved(s, before, snapshotOf(s), [dead], [path.join(s.repo, '.git', pinOf(dead))]);
  }, 120_000);
});
