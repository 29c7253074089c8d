import { existsSync, mkdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { removeQuarantined } from '../../src/core/executor.js';
import type { ApplyContext, OwnerJudgement } from '../../src/core/types.js';
import { examineWorktree } from '../../src/worktree/evidence.js';
import { adminEntryRemoval, findStaleAdminEntries } from '../../src/worktree/prune.js';
import { gitWorktreeRemoval } from '../../src/worktree/remove.js';
import { put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { tempDir } from '../helpers/temp.js';
import { addWorktree, expectOnly, listedWorktrees, makeRepo, sh } from './git-fixtures.js';

const ctx: ApplyContext = {
  owner: null,
  log: pino({ level: 'silent' }),
  removeTree: async (target) => removeQuarantined(target, false, null),
};

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
    const removal = await planFor(tree);
    if (removal.type !== 'custom') throw new Error('expected a custom removal');
    await removal.apply(ctx);
    expect(existsSync(tree)).toBe(false);
    expect(listedWorktrees(repo)).toEqual([repo]);
    expect(sh(repo, 'branch', '--list', 'feature-a').trim()).toBe('feature-a');
  });

  for (const [change, act] of [
    [
      'an untracked file written after the plan',
      (tree: string, _repo: string) => put(path.join(tree, 'late.txt'), 'late work\n'),
    ],
    ['a lock taken after the plan', (tree: string, repo: string) => sh(repo, 'worktree', 'lock', tree)],
    [
      'a commit made after the plan',
      (tree: string) => {
        put(path.join(tree, 'c.txt'), 'c');
        sh(tree, 'add', 'c.txt');
        sh(tree, 'commit', '-q', '-m', 'late');
      },
    ],
  ] as const) {
    it(`stops at ${change} and loses nothing`, async () => {
      const dir = tempDir();
      const repo = makeRepo(path.join(dir, 'repo'));
      const tree = addWorktree(repo, path.join(dir, 'trees', 'a'), 'feature-a');
      const removal = await planFor(tree);
      act(tree, repo);
      const before = inventory(dir);
      if (removal.type !== 'custom') throw new Error('expected a custom removal');
      await expect(removal.apply(ctx)).rejects.toThrow(/left alone/);
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
    mkdirSync(path.join(owned, 'stale'));
    const removal = adminEntryRemoval(stale[0] as (typeof stale)[number], owned);
    if (removal.type !== 'custom') throw new Error('expected a custom removal');
    await expect(removal.apply(ctx)).rejects.toThrow(/no longer a stale entry/);
    rmdirSync(path.join(owned, 'stale'));
    const before = inventory(path.join(repo, '.git'));
    await removal.apply(ctx);
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
