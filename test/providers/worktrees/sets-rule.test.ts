import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { sleeperIn, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { expectOnly, listedWorktrees, repoState } from '../../helpers/git-fixtures.js';
import { buildSetsWorld } from './scenario.js';

const GONE = ['merged-clean', 'merged-later', 'pushed', 'tagged', 'agent-done'];

describe('worktrees: configured sets of agent worktrees', () => {
  it('removes only idle, clean, unlocked worktrees whose HEAD another ref holds; every known failure keeps its bytes', async () => {
    const dir = tempDir();
    const w = buildSetsWorld(path.join(dir, 'world'));
    const sleeper = sleeperIn(w.at('in-use'));
    await waitFor(() => existsSync(`/proc/${sleeper.pid}/cwd`));
    const before = inventory(w.world);
    const gitBefore = repoState(w.repo);

    const { report, exitCode } = await pass({ dir, config: w.config, only: ['worktrees'] });

    expect(exitCode).toBe(0);
    // Both sets override built-in ones by name, so they are looked at in the built-ins' order.
    expect(report.providers.map((root) => [root.root, root.ok])).toEqual([
      [w.claude, true],
      [w.workspace, true],
    ]);
    const verdict = (name: string) => {
      const item = itemAt(report, w.at(name));
      return `${item.verdict} ${item.reason}`;
    };
    for (const name of GONE) expect(verdict(name), name).toBe('deleted idle-clean');
    expect(verdict('dirty')).toBe('unfinished uncommitted-changes');
    expect(verdict('untracked')).toBe('unfinished uncommitted-changes');
    expect(itemAt(report, w.at('untracked')).detail).toContain('1 untracked file (src/new-module.ts)');
    expect(verdict('detached-unpushed')).toBe('unfinished unique-commits');
    expect(itemAt(report, w.at('detached-unpushed')).detail).toMatch(/detached HEAD .*1 commit nowhere else/);
    expect(verdict('branch-unmerged')).toBe('unfinished unique-commits');
    expect(itemAt(report, w.at('branch-unmerged')).detail).toContain('vk/branch-unmerged');
    expect(verdict('with-submodule')).toBe('refused has-submodule');
    expect(verdict('recent')).toBe('kept not-idle');
    expect(verdict('admin-recent')).toBe('kept not-idle');
    expect(verdict('in-use')).toBe('refused in-use');
    expect(verdict('agent-subagent')).toBe('refused git-locked');
    expect(itemAt(report, w.at('agent-subagent')).detail).toContain('claude agent agent-subagent');
    expect(verdict('owner-unmounted')).toBe('refused owner-unavailable');
    expect(report.items.some((item) => item.path === path.join(w.workspace, 'a-clone'))).toBe(false);

    // Exactly the five proven trees and their admin entries are gone; nothing else changed by a byte.
    const rel = (p: string) => path.relative(w.world, p);
    const admin = (name: string) => rel(path.join(w.repo, '.git', 'worktrees', name));
    expectOnly(before, inventory(w.world), {
      removed: GONE.flatMap((name) => [rel(w.at(name)), admin(name)]),
      changedDirs: [rel(w.workspace), rel(w.claude), rel(path.join(w.repo, '.git', 'worktrees'))],
    });
    // Branches stay, refs and the main index are untouched, git lists just the others.
    const gitAfter = repoState(w.repo);
    expect(gitAfter.branches).toEqual(gitBefore.branches);
    expect(gitAfter.branches).toEqual(
      expect.arrayContaining(['vk/merged-clean', 'vk/merged-later', 'vk/pushed', 'worktree-agent-done']),
    );
    expect(gitAfter.refs).toBe(gitBefore.refs);
    expect(gitAfter.indexHash).toBe(gitBefore.indexHash);
    const listed = listedWorktrees(w.repo);
    for (const name of GONE) expect(listed).not.toContain(w.at(name));
    for (const name of [
      'dirty',
      'untracked',
      'detached-unpushed',
      'branch-unmerged',
      'with-submodule',
      'recent',
      'admin-recent',
      'in-use',
      'agent-subagent',
    ]) {
      expect(listed).toContain(w.at(name));
    }
    // The unmounted repository comes back with its worktree still registered and whole.
    expect(listedWorktrees(w.unmountedRepo)).toContain(w.at('owner-unmounted'));
  });

  it('report-only marks the same trees would-delete and changes nothing on disk or in git', async () => {
    const dir = tempDir();
    const w = buildSetsWorld(path.join(dir, 'world'));
    const before = inventory(w.world);
    const gitBefore = repoState(w.repo);

    const { report } = await pass({ dir, config: w.config, only: ['worktrees'], reportOnly: true });

    for (const name of [...GONE, 'in-use']) expect(itemAt(report, w.at(name)).verdict, name).toBe('would-delete');
    expectOnly(before, inventory(w.world), {});
    expect(repoState(w.repo)).toEqual(gitBefore);
  });
});
