import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { repackBetweenSteps, type CaughtRepack } from '../../support/real-clis/git-at-work.js';
import { addKiloWorktree, git, makeRepo, makeSnapshot, removeKiloWorktree, sha1 } from './fixtures.js';
import { expectOnlyGarbageGone, linkedScene, runKilo, scene, snapshotOf, type Scene } from './scene.js';

/**
 * Rules 25 and 26: a git at work in a checkpoint repository, found by what it reaches rather than
 * how it names it, keeps every one of git's temporary files there, stopped or frozen, whether or
 * not it holds them. A real `git repack` of opencode's repository, caught between writing its
 * `.tmp-<pid>-pack-*` and renaming them (it then holds nothing there), beside the `tmp_pack_*` an
 * earlier `git add` killed mid-pack left: in a container that mounts the home at /workspace, and
 * on this machine through a link to the home.
 */

/** The item of each garbage file is refused in use, naming the git repack. */
function expectKeptForGit(
  report: Awaited<ReturnType<typeof runKilo>>['report'],
  files: string[],
  repack: CaughtRepack,
) {
  for (const file of files) {
    const item = itemAt(report, file);
    expect(item).toMatchObject({ kind: 'git-garbage', verdict: 'refused', reason: 'in-use' });
    // Other git processes of this machine may be named beside it.
    expect(item.detail).toMatch(new RegExp(`^process(es)? (.*, )?${repack.pid} \\(\\S*git --git-dir `));
    expect(item.detail).toContain('git at work in the repository');
  }
}

/** opencode's live checkpoint repository of R, with the garbage a `git add` killed mid-pack left in it. */
async function repositoryWithGarbage(s: Scene) {
  const gitdir = makeSnapshot(s.data, s.projectId, s.repo);
  const killed = await killGitMidPack({ gitDir: gitdir, workTree: s.repo });
  return { gitdir, earlier: killed.tmpPack };
}

/**
 * The same, made by an opencode in a container for a project of the home it sees at `/workspace`:
 * its `core.worktree`, and the folder name hashed from it, are the container's spelling.
 */
async function containerRepositoryWithGarbage(s: Scene) {
  const project = makeRepo(path.join(s.home, 'src', 'app'));
  const made = makeSnapshot(s.data, s.projectId, project);
  const killed = await killGitMidPack({ gitDir: made, workTree: project });
  const inContainer = path.join('/workspace', path.relative(s.home, project));
  git(['config', '--file', path.join(made, 'config'), 'core.worktree', inContainer]);
  const gitdir = path.join(path.dirname(made), sha1(inContainer));
  renameSync(made, gitdir);
  return { gitdir, earlier: path.join(gitdir, path.relative(made, killed.tmpPack)) };
}

describe("a git at work in opencode's checkpoint repository, seen by identity", () => {
  const cases = [
    { hold: 'freeze', how: 'frozen by the cgroup freezer', relative: false },
    { hold: 'stop', how: 'stopped by SIGSTOP', relative: false },
    // From its working directory, its root: `..` cannot climb out of the container, for git or for the pass.
    { hold: 'stop', how: 'stopped by SIGSTOP, its --git-dir climbing with `..` above its root', relative: true },
  ] as const;
  for (const { hold, how, relative } of cases)
    it(`in a container that mounts the home at /workspace, ${how}: every garbage file stays until it ${hold === 'freeze' ? 'has finished' : 'is killed'}`, async () => {
      const s = scene('opencode');
      const { gitdir, earlier } = await containerRepositoryWithGarbage(s);
      const inside = path.join('/workspace', path.relative(s.home, gitdir));
      const repack = await repackBetweenSteps({
        gitDir: gitdir,
        spelled: relative ? path.join('../..', inside) : inside,
        hold,
        container: { home: s.home },
      });
      const before = snapshotOf(s);

      const { report } = await runKilo(s);

      expectKeptForGit(report, [earlier, ...repack.tmpFiles], repack);
      expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });

      // Once the git is gone, what it left is garbage again; what it finished is not.
      if (hold === 'freeze') await repack.resume();
      else await repack.kill();
      const after = snapshotOf(s);
      const left = hold === 'freeze' ? [earlier] : [earlier, ...repack.tmpFiles];
      for (const file of repack.tmpFiles) expect(existsSync(file)).toBe(hold === 'stop');

      const again = await runKilo(s);

      for (const file of left)
        expect(itemAt(again.report, file)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
      expectOnlyGarbageGone(s, after, left);
    }, 120_000);

  it('on this machine, started through a link to the home the pass names canonically, stopped by SIGSTOP: every garbage file stays until it has finished', async () => {
    const s = linkedScene('opencode');
    const { gitdir, earlier } = await repositoryWithGarbage(s);
    const repack = await repackBetweenSteps({ gitDir: gitdir, spelled: s.throughLink(gitdir), hold: 'stop' });
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expectKeptForGit(report, [earlier, ...repack.tmpFiles], repack);
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });

    await repack.resume();
    const after = snapshotOf(s);
    for (const file of repack.tmpFiles) expect(existsSync(file)).toBe(false);

    const again = await runKilo(s);

    expect(itemAt(again.report, earlier)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expectOnlyGarbageGone(s, after, [earlier]);
  }, 120_000);

  it('keeps a whole dead checkpoint repository while a stopped git works in it, holding nothing there', async () => {
    const s = scene();
    const worktree = addKiloWorktree(s.repo, 'done');
    const gitdir = makeSnapshot(s.data, s.projectId, worktree);
    removeKiloWorktree(s.repo, worktree);
    const repack = await repackBetweenSteps({ gitDir: gitdir, spelled: gitdir, hold: 'stop' });
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, gitdir)).toMatchObject({ kind: 'checkpoint-repo', verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, gitdir).detail).toContain(String(repack.pid));
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });

    await repack.kill();
    const again = await runKilo(s);

    expect(itemAt(again.report, gitdir)).toMatchObject({ kind: 'checkpoint-repo', verdict: 'deleted' });
    expect(existsSync(gitdir)).toBe(false);
  }, 120_000);
});
