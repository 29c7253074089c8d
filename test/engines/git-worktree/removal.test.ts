import { existsSync, mkdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OwnerJudgement } from '../../../src/model/types.js';
import { examineWorktree } from '../../../src/engines/git-worktree/evidence.js';
import { adminEntryRemoval, findStaleAdminEntries } from '../../../src/engines/git-worktree/prune.js';
import { gitWorktreeRemoval } from '../../../src/engines/git-worktree/remove.js';
import { deadCandidate, evidenceMoment, executeOne } from '../../helpers/execute.js';
import { put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { tempDir } from '../../helpers/temp.js';
import { addWorktree, expectOnly, listedWorktrees, makeRepo, sh } from '../../helpers/git-fixtures.js';

/** Stands in for a provider's judge: delete only a clean, unlocked worktree. */
const cleanAndUnlocked = (fresh: Awaited<ReturnType<typeof examineWorktree>>): OwnerJudgement => {
  if (fresh.state !== 'linked' || !fresh.git)
    return { decision: 'refused', reason: 'not-a-worktree', detail: 'not linked' };
  if (fresh.link.lockedReason !== null) return { decision: 'kept', reason: 'git-locked', detail: 'locked' };
  if (fresh.git.changes.changed + fresh.git.changes.untracked > 0)
    return { decision: 'unfinished', reason: 'uncommitted-changes', detail: 'dirty now' };
  return { decision: 'delete', reason: 'idle-clean', detail: 'clean' };
};

async function planFor(worktree: string) {
  const judged = await examineWorktree(worktree);
  if (judged.state !== 'linked') throw new Error('fixture is not a worktree');
  return gitWorktreeRemoval({ judged, rejudge: cleanAndUnlocked });
}

describe('worktree engine: removal proves its case again at the last moment', () => {
  it('removes a clean worktree with git worktree remove and keeps its branch', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const tree = addWorktree(repo, path.join(dir, 'trees', 'a'), 'feature-a');
    const sinceMs = await evidenceMoment();
    const removal = await planFor(tree);
    const done = await executeOne(deadCandidate(tree, path.join(dir, 'trees'), removal), { sinceMs });
    expect(done.outcome.verdict).toBe('deleted');
    expect(existsSync(tree)).toBe(false);
    expect(listedWorktrees(repo)).toEqual([repo]);
    expect(sh(repo, 'branch', '--list', 'feature-a').trim()).toBe('feature-a');
  });

  for (const [change, act, verdict, reason, why] of [
    [
      'an untracked file written after the plan',
      (tree: string, _repo: string) => put(path.join(tree, 'late.txt'), 'late work\n'),
      'unfinished',
      'uncommitted-changes',
      /judged again just before the delete: dirty now/,
    ],
    [
      'a lock taken after the plan',
      (tree: string, repo: string) => sh(repo, 'worktree', 'lock', tree),
      'refused',
      'git-locked',
      /judged again just before the delete: locked/,
    ],
    [
      'a commit made after the plan',
      (tree: string) => {
        put(path.join(tree, 'c.txt'), 'c');
        sh(tree, 'add', 'c.txt');
        sh(tree, 'commit', '-q', '-m', 'late');
      },
      'refused',
      'changed-during-inspection',
      /HEAD of .* moved since it was judged/,
    ],
  ] as const) {
    it(`stops at ${change}, ${verdict} with the re-check's reason, and loses nothing`, async () => {
      const dir = tempDir();
      const repo = makeRepo(path.join(dir, 'repo'));
      const tree = addWorktree(repo, path.join(dir, 'trees', 'a'), 'feature-a');
      const sinceMs = await evidenceMoment();
      const removal = await planFor(tree);
      let before = inventory(dir);
      const done = await executeOne(deadCandidate(tree, path.join(dir, 'trees'), removal), {
        sinceMs,
        before: () => {
          act(tree, repo);
          before = inventory(dir);
        },
      });
      expect(done.outcome).toMatchObject({ verdict, reason });
      expect(done.outcome.detail).toMatch(why);
      expectOnly(before, inventory(dir), {});
      expect(listedWorktrees(repo)).toContain(tree);
    });
  }

  it('prunes a stale admin entry under the owned root alone: never a locked one, never one for a worktree elsewhere', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const owned = path.join(dir, 'owned');
    mkdirSync(owned);
    for (const name of ['stale', 'locked', 'alive']) addWorktree(repo, path.join(owned, name), `b-${name}`);
    addWorktree(repo, path.join(dir, 'elsewhere', 'mine'), 'b-mine');
    sh(repo, 'worktree', 'lock', path.join(owned, 'locked'));
    for (const gone of [path.join(owned, 'stale'), path.join(owned, 'locked'), path.join(dir, 'elsewhere', 'mine')])
      rmSync(gone, { recursive: true, force: true });

    const stale = await findStaleAdminEntries(path.join(repo, '.git'), owned);
    expect(stale.map((entry) => entry.worktree)).toEqual([path.join(owned, 'stale')]);

    // It comes back before the removal: the entry is no longer stale and stays.
    const entry = stale[0] as (typeof stale)[number];
    const sinceMs = await evidenceMoment();
    const candidate = {
      ...deadCandidate(entry.adminDir, entry.adminRoot, adminEntryRemoval(entry, owned)),
      kind: 'worktree-admin' as const,
    };
    mkdirSync(path.join(owned, 'stale'));
    const back = await executeOne(candidate, { sinceMs });
    expect(back.outcome).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(back.outcome.detail).toMatch(/no longer a stale entry/);
    expect(existsSync(entry.adminDir)).toBe(true);
    rmdirSync(path.join(owned, 'stale'));
    const before = inventory(path.join(repo, '.git'));
    const gone = await executeOne(candidate, { sinceMs });
    expect(gone.outcome.verdict).toBe('deleted');
    const rel = (p: string) => path.relative(path.join(repo, '.git'), p);
    expectOnly(before, inventory(path.join(repo, '.git')), {
      removed: [rel(stale[0]?.adminDir as string)],
      changedDirs: ['worktrees'],
    });
    const listed = listedWorktrees(repo);
    expect(listed).toEqual(
      expect.arrayContaining([
        path.join(owned, 'locked'),
        path.join(owned, 'alive'),
        path.join(dir, 'elsewhere', 'mine'),
      ]),
    );
    expect(listed).not.toContain(path.join(owned, 'stale'));
  });
});
