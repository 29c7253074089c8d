import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { git, lockDirOf, makeSnapshot, writeKiloLock } from './fixtures.js';
import { expectOnlyGarbageGone, runKilo, scene, snapshotOf, type Scene } from './scene.js';

/** A live checkpoint repository of R itself, with real garbage left by a `git add` killed mid-pack. */
async function liveRepoWithGarbage(s: Scene) {
  const gitdir = makeSnapshot(s.data, s.projectId, s.repo);
  const killed = await killGitMidPack({ gitDir: gitdir, workTree: s.repo });
  return { gitdir, killed };
}

describe('git garbage in live kilo and opencode checkpoint repositories', () => {
  for (const app of ['opencode', 'kilo'] as const) {
    it(`${app}: deletes the tmp_pack_* a killed git left in a live repository, and nothing else`, async () => {
      const s = scene(app);
      const { gitdir, killed } = await liveRepoWithGarbage(s);
      const tree = git(['--git-dir', gitdir, 'rev-parse', 'HEAD^{tree}']).trim();
      const before = snapshotOf(s);

      const { report, exitCode } = await runKilo(s);

      expect(exitCode).toBe(0);
      expect(itemAt(report, killed.tmpPack)).toMatchObject({
        kind: 'git-garbage',
        verdict: 'deleted',
        reason: 'git-temporary',
        bytes: killed.bytes,
      });
      const repoItem = itemAt(report, gitdir);
      expect(repoItem).toMatchObject({ kind: 'checkpoint-repo', verdict: 'kept', reason: 'worktree-present' });
      expect(repoItem.detail).toContain("one of git's temporary files in it");
      expectOnlyGarbageGone(s, before, [killed.tmpPack]);
      // The index.lock the killed add held is git's to judge, not garbage: it stays.
      expect(statSync(killed.indexLock as string).isFile()).toBe(true);
      git(['--git-dir', gitdir, 'cat-file', '-e', tree]);
    }, 120_000);
  }

  it('reports the garbage as would-delete in a report-only pass, with its bytes in wouldReclaimBytes, and changes nothing', async () => {
    const s = scene('opencode');
    const { gitdir, killed } = await liveRepoWithGarbage(s);
    const before = snapshotOf(s);

    const { report } = await runKilo(s, { reportOnly: true });

    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'would-delete', reason: 'git-temporary' });
    expect(report.totals.wouldReclaimBytes).toBe(killed.bytes);
    // The repository's own item no longer counts the bytes its garbage item reports.
    const repoItem = itemAt(report, gitdir);
    expect(repoItem.verdict).toBe('kept');
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });

    const deleting = await runKilo(s);
    expect(itemAt(deleting.report, killed.tmpPack).verdict).toBe('deleted');
    expect(itemAt(deleting.report, gitdir).bytes).toBe(repoItem.bytes);
  }, 120_000);

  it("refuses Kilo Code's garbage while a live Kilo Code holds the repository's snapshot lock", async () => {
    const s = scene('kilo');
    const { gitdir, killed } = await liveRepoWithGarbage(s);
    writeKiloLock(lockDirOf(s.state, gitdir), new Date());
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  }, 120_000);

  it('refuses garbage newer than minAge (too-recent)', async () => {
    const s = scene('opencode');
    const { killed } = await liveRepoWithGarbage(s);
    const before = snapshotOf(s);

    const { report } = await runKilo(s, { config: { minAge: '1h' } });

    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  }, 120_000);

  it('finds the garbage of old per-project repositories (`snapshot/<project>/` itself) too, which stay', async () => {
    const s = scene('opencode');
    const legacy = path.join(s.data, 'snapshot', s.projectId);
    mkdirSync(legacy, { recursive: true });
    const env = { GIT_DIR: legacy, GIT_WORK_TREE: s.repo };
    git(['init', '-q'], { env });
    git(['add', '-A'], { env });
    const tree = git(['write-tree'], { env }).trim();
    const stale = path.join(legacy, 'objects', 'ab', 'tmp_obj_Xy12Zq');
    mkdirSync(path.dirname(stale), { recursive: true });
    writeFileSync(stale, 'half a loose object');
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, stale)).toMatchObject({ kind: 'git-garbage', verdict: 'deleted', reason: 'git-temporary' });
    expect(itemAt(report, legacy)).toMatchObject({ verdict: 'kept', reason: 'legacy-project-repo' });
    expectOnlyGarbageGone(s, before, [stale]);
    git(['--git-dir', legacy, 'cat-file', '-e', tree]);
  }, 120_000);
});
