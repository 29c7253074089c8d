import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemAt, pass } from '../../helpers/pass.js';
import { inventory } from '../../helpers/inventory.js';
import { tempDir } from '../../helpers/temp.js';
import { expectOnly, listedWorktrees, repoState, sqliteCompanion } from '../../helpers/git-fixtures.js';
import { ownHomeEnv } from './env.js';
import { buildOwlScenario } from './scenario.js';

const config = (home: string) => ({ homes: [home], minAge: '1h' });

describe('owl: ADR-0015 over every job state', () => {
  it('removes the worktrees of done, cancelled and vanished jobs, and reports everything else without touching it', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = buildOwlScenario(world);
    const before = inventory(world);
    const gitBefore = repoState(owl.repo);

    const { report, exitCode } = await pass({
      dir,
      config: config(owl.home),
      only: ['owl'],
      env: ownHomeEnv(owl.home),
    });

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'owl', root: owl.data, ok: true }]);
    const verdict = (p: string) => {
      const item = itemAt(report, p);
      return `${item.kind} ${item.verdict} ${item.reason}`;
    };
    expect(verdict(owl.worktree(1))).toBe('worktree deleted job-done');
    expect(verdict(owl.worktree(2))).toBe('worktree deleted job-cancelled');
    expect(verdict(owl.worktree(3))).toBe('worktree deleted job-vanished');
    expect(verdict(owl.worktree(4))).toBe('worktree unfinished unique-commits');
    expect(verdict(owl.worktree(5))).toBe('worktree unfinished uncommitted-changes');
    expect(verdict(owl.worktree(6))).toBe('worktree unfinished uncommitted-changes');
    expect(verdict(owl.worktree(7))).toBe('worktree unfinished review-overdue');
    expect(verdict(owl.worktree(8))).toBe('worktree kept job-open');
    expect(verdict(owl.worktree(9))).toBe('worktree unfinished active-without-daemon');
    for (const id of [10, 11, 12]) expect(verdict(owl.worktree(id))).toBe('worktree kept job-open');
    expect(verdict(owl.worktree(15))).toBe('worktree refused has-submodule');
    expect(verdict(owl.worktree(16))).toBe('worktree refused git-locked');
    expect(verdict(path.join(owl.repo, '.git', 'worktrees', '14'))).toBe('worktree-admin deleted stale-admin-entry');
    expect(verdict(owl.config(14))).toBe('worktree-admin deleted orphan-worktree-config');
    expect(verdict(owl.config(17))).toBe('worktree-admin deleted orphan-worktree-config');
    const jobFinding = report.items.filter((item) => item.kind === 'job');
    expect(jobFinding).toHaveLength(1);
    expect(jobFinding[0]).toMatchObject({ path: null, verdict: 'unfinished', reason: 'active-without-daemon' });
    expect(jobFinding[0]?.detail).toContain('job 13');
    expect(itemAt(report, owl.worktree(4)).detail).toMatch(/2 commits nowhere else/);
    expect(itemAt(report, owl.worktree(6)).detail).toContain('1 untracked file');
    expect(itemAt(report, owl.worktree(9)).detail).toContain('run');

    // The file system: exactly the proven-dead trees are gone, nothing else changed by a byte.
    const after = inventory(world);
    const rel = (p: string) => path.relative(world, p);
    expectOnly(before, after, {
      removed: [1, 2, 3]
        .flatMap((id) => [
          rel(owl.worktree(id)),
          rel(owl.config(id)),
          rel(path.join(owl.repo, '.git', 'worktrees', String(id))),
        ])
        .concat([rel(path.join(owl.repo, '.git', 'worktrees', '14')), rel(owl.config(14)), rel(owl.config(17))]),
      changedDirs: [
        rel(owl.data),
        rel(path.join(owl.data, 'worktrees')),
        rel(path.join(owl.data, 'worktree-config')),
        rel(path.join(owl.repo, '.git', 'worktrees')),
      ],
      ignore: sqliteCompanion,
    });

    // Git: every branch stays; only the removed worktrees and the one stale Owl entry left the list.
    const gitAfter = repoState(owl.repo);
    expect(gitAfter.branches).toEqual(gitBefore.branches);
    expect(gitAfter.refs).toBe(gitBefore.refs);
    expect(gitAfter.indexHash).toBe(gitBefore.indexHash);
    const listed = listedWorktrees(owl.repo);
    for (const id of [1, 2, 3, 14]) expect(listed).not.toContain(owl.worktree(id));
    for (const id of [4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16]) expect(listed).toContain(owl.worktree(id));
    // The user's own worktree elsewhere keeps its admin entry although its folder is gone.
    expect(listed).toContain(path.join(owl.home, 'elsewhere', 'feature'));
    expect(existsSync(path.join(owl.repo, '.git', 'worktrees', 'feature'))).toBe(true);

    // A second pass over the same state changes nothing.
    const settled = inventory(world);
    const again = await pass({ dir, config: config(owl.home), only: ['owl'], env: ownHomeEnv(owl.home) });
    expect(again.report.totals.deleted).toBe(0);
    expectOnly(settled, inventory(world), { ignore: sqliteCompanion });
  });

  it('report-only lists the same verdicts as would-delete and leaves every byte, index and ref alone', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = buildOwlScenario(world);
    const before = inventory(world);
    const gitBefore = repoState(owl.repo);

    const { report } = await pass({
      dir,
      config: config(owl.home),
      only: ['owl'],
      reportOnly: true,
      env: ownHomeEnv(owl.home),
    });

    for (const id of [1, 2, 3]) expect(itemAt(report, owl.worktree(id)).verdict).toBe('would-delete');
    expect(itemAt(report, path.join(owl.repo, '.git', 'worktrees', '14')).verdict).toBe('would-delete');
    expect(report.totals.deleted).toBe(0);
    expectOnly(before, inventory(world), { changedDirs: [path.relative(world, owl.data)], ignore: sqliteCompanion });
    expect(repoState(owl.repo)).toEqual(gitBefore);
  });
});
