import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import {
  addKiloWorktree,
  hasGitLfs,
  makeRepo,
  makeSnapshot,
  pinOf,
  refExists,
  removeKiloWorktree,
  sha1,
  writeAgentManager,
} from './fixtures.js';
import { expectOnlyRemoved, runKilo, scene, snapshotOf } from './scene.js';

describe('kilo checkpoint repositories: what is deleted', () => {
  it('keeps the repository of a worktree that exists, managed or not', async () => {
    const s = scene();
    const main = makeSnapshot(s.data, s.projectId, s.repo);
    const live = addKiloWorktree(s.repo, 'live');
    const liveRepo = makeSnapshot(s.data, s.projectId, live, { seededFrom: s.repo });
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'kilo', root: s.data, ok: true }]);
    for (const gitdir of [main, liveRepo]) {
      const item = itemAt(report, gitdir);
      expect(item).toMatchObject({ kind: 'checkpoint-repo', verdict: 'kept', reason: 'worktree-present' });
      expect(item.bytes).toBeGreaterThan(0);
    }
    expect(refExists(s.repo, pinOf(liveRepo))).toBe(true);
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('deletes the whole repository of a removed worktree, LFS data and seeding leftovers included, and drops its pin', async () => {
    const s = scene();
    const main = makeSnapshot(s.data, s.projectId, s.repo, { lfs: true });
    const live = addKiloWorktree(s.repo, 'live');
    const liveRepo = makeSnapshot(s.data, s.projectId, live, { seededFrom: s.repo, lfs: true });
    const gone = addKiloWorktree(s.repo, 'feature-x');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo, lfs: true });
    removeKiloWorktree(s.repo, gone);
    if (hasGitLfs()) expect(existsSync(path.join(goneRepo, 'lfs', 'objects'))).toBe(true);
    expect(existsSync(path.join(goneRepo, 'seed-objects'))).toBe(true);
    expect(refExists(s.repo, pinOf(goneRepo))).toBe(true);
    const pinFile = path.join(s.repo, '.git', pinOf(goneRepo));
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    const item = itemAt(report, goneRepo);
    expect(item).toMatchObject({ kind: 'checkpoint-repo', verdict: 'deleted', reason: 'worktree-removed' });
    expect(item.detail).toContain(pinOf(goneRepo));
    expect(item.bytes).toBeGreaterThan(0);
    expect(existsSync(goneRepo)).toBe(false);
    expect(refExists(s.repo, pinOf(goneRepo))).toBe(false);
    // The other pins and repositories stay, byte for byte; so does the whole owner repository but the pin.
    expect(refExists(s.repo, pinOf(liveRepo))).toBe(true);
    expect(itemAt(report, main).verdict).toBe('kept');
    expect(itemAt(report, liveRepo).verdict).toBe('kept');
    expectOnlyRemoved(s, before, snapshotOf(s), [goneRepo], [pinFile]);
    // No lock is left behind, and no quarantine either.
    expect(existsSync(path.join(s.state, 'locks', `${sha1(`snapshot:${goneRepo}`)}.lock`))).toBe(false);
    expect(report.items.filter((entry) => entry.kind === 'quarantine')).toEqual([]);

    // A second pass over the same state changes nothing.
    const settled = snapshotOf(s);
    const again = await runKilo(s);
    expect(again.report.totals.deleted).toBe(0);
    expect(diffInventories(settled, snapshotOf(s)).removed).toEqual([]);
  });

  it('lists what it would delete in a report-only pass and changes nothing', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    const before = snapshotOf(s);

    const { report } = await runKilo(s, { reportOnly: true });

    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'would-delete', reason: 'worktree-removed' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses a repository that Kilo is seeding right now, and deletes one whose seeding died long ago', async () => {
    const s = scene();
    const seeding = addKiloWorktree(s.repo, 'seeding');
    const seedingRepo = makeSnapshot(s.data, s.projectId, seeding, { seededFrom: s.repo });
    const died = addKiloWorktree(s.repo, 'died');
    const diedRepo = makeSnapshot(s.data, s.projectId, died, { seededFrom: s.repo });
    for (const worktree of [seeding, died]) removeKiloWorktree(s.repo, worktree);
    const { copyFileSync, utimesSync } = await import('node:fs');
    copyFileSync(path.join(s.repo, '.git', 'index'), path.join(seedingRepo, 'seed.index'));
    copyFileSync(path.join(s.repo, '.git', 'index'), path.join(diedRepo, 'seed.index'));
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(diedRepo, 'seed.index'), longAgo, longAgo);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, seedingRepo)).toMatchObject({ verdict: 'refused', reason: 'being-seeded' });
    expect(itemAt(report, diedRepo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(refExists(s.repo, pinOf(seedingRepo))).toBe(true);
    expect(refExists(s.repo, pinOf(diedRepo))).toBe(false);
    expectOnlyRemoved(s, before, snapshotOf(s), [diedRepo], [path.join(s.repo, '.git', pinOf(diedRepo))]);
    expect(statSync(seedingRepo).isDirectory()).toBe(true);
  });

  it('handles the legacy .kilocode/worktrees place and the agent-manager.json kept there', async () => {
    const s = scene();
    const listed = addKiloWorktree(s.repo, 'old-listed', '.kilocode');
    const gone = addKiloWorktree(s.repo, 'old-gone', '.kilocode');
    const listedRepo = makeSnapshot(s.data, s.projectId, listed);
    const goneRepo = makeSnapshot(s.data, s.projectId, gone);
    for (const worktree of [listed, gone]) removeKiloWorktree(s.repo, worktree);
    writeAgentManager(s.repo, [{ path: listed, branch: 'old-listed' }], '.kilocode');

    const { report } = await runKilo(s);

    expect(itemAt(report, listedRepo)).toMatchObject({ verdict: 'refused', reason: 'agent-manager-lists-worktree' });
    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(existsSync(goneRepo)).toBe(false);
    expect(existsSync(listedRepo)).toBe(true);
  });

  it('deletes nothing younger than minAge', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);

    const { report } = await runKilo(s, { config: { minAge: '1h' } });

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(existsSync(repo)).toBe(true);
  });

  it("a second repository of the same owner is unaffected by the first one's removal", async () => {
    const s = scene();
    const other = makeRepo(path.join(s.root, 'projects', 'other'));
    const otherGone = addKiloWorktree(other, 'gone');
    const otherRepo = makeSnapshot(s.data, 'other-project', otherGone);
    const gone = addKiloWorktree(s.repo, 'gone');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, otherRepo)).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    expect(itemAt(report, goneRepo).verdict).toBe('deleted');
    expectOnlyRemoved(s, before, snapshotOf(s), [goneRepo]);
  });
});
