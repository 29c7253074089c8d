import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import {
  addKiloWorktree,
  git,
  makeSnapshot,
  pinOf,
  refExists,
  removeKiloWorktree,
  writeAgentManager,
} from './fixtures.js';
import { expectOnlyRemoved, runKilo, scene, snapshotOf } from './scene.js';

describe('kilo checkpoint repositories: what is refused or only reported', () => {
  it('refuses when the owner repository is missing (an unmounted volume looks the same)', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone);
    rmSync(s.repo, { recursive: true, force: true });
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'refused', reason: 'owner-unavailable' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses when the owner folder is no longer the root of a git repository', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    rmSync(path.join(s.repo, '.git'), { recursive: true, force: true });
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'refused', reason: 'owner-unavailable' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses while git still has an admin entry for the worktree', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    rmSync(gone, { recursive: true, force: true });
    expect(git(['-C', s.repo, 'worktree', 'list', '--porcelain'])).toContain(gone);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'refused', reason: 'worktree-still-registered' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
    expect(refExists(s.repo, pinOf(goneRepo))).toBe(true);
  });

  it("refuses while the Agent Manager's agent-manager.json still lists the worktree, by absolute or relative path", async () => {
    const s = scene();
    const absolute = addKiloWorktree(s.repo, 'listed-abs');
    const relative = addKiloWorktree(s.repo, 'listed-rel');
    const unlisted = addKiloWorktree(s.repo, 'unlisted');
    const repos = [absolute, relative, unlisted].map((worktree) => makeSnapshot(s.data, s.projectId, worktree));
    for (const worktree of [absolute, relative, unlisted]) removeKiloWorktree(s.repo, worktree);
    writeAgentManager(s.repo, [
      { path: absolute, branch: 'listed-abs' },
      { path: path.join('.kilo', 'worktrees', 'listed-rel'), branch: 'listed-rel' },
    ]);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, repos[0] as string)).toMatchObject({
      verdict: 'refused',
      reason: 'agent-manager-lists-worktree',
    });
    expect(itemAt(report, repos[1] as string)).toMatchObject({
      verdict: 'refused',
      reason: 'agent-manager-lists-worktree',
    });
    expect(itemAt(report, repos[2] as string)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expectOnlyRemoved(s, before, snapshotOf(s), [repos[2] as string]);
  });

  it('refuses, with its size, the repository of a worktree the user made elsewhere', async () => {
    const s = scene();
    const elsewhere = path.join(s.root, 'scratch', 'my-own-worktree');
    git(['-C', s.repo, 'worktree', 'add', '-q', '-b', 'mine', elsewhere]);
    const repo = makeSnapshot(s.data, s.projectId, elsewhere);
    git(['-C', s.repo, 'worktree', 'remove', '--force', elsewhere]);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    const item = itemAt(report, repo);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'unmanaged-worktree' });
    expect(item.bytes).toBeGreaterThan(1000);
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses a repository whose folder name is not the hash of its core.worktree', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    git(['--git-dir', repo, 'config', 'core.worktree', path.join(s.repo, '.kilo', 'worktrees', 'other')]);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'worktree-hash-mismatch' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses a repository that records no worktree', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    git(['--git-dir', repo, 'config', '--unset', 'core.worktree']);

    const { report } = await runKilo(s);

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'worktree-unrecorded' });
    expect(existsSync(repo)).toBe(true);
  });

  it('reports the legacy per-project repository with its size and never deletes it', async () => {
    const s = scene();
    const legacy = path.join(s.data, 'snapshot', s.projectId);
    (await import('node:fs')).mkdirSync(legacy, { recursive: true });
    git(['init', '-q'], { env: { GIT_DIR: legacy, GIT_WORK_TREE: s.repo } });
    git(['add', '-A'], { env: { GIT_DIR: legacy, GIT_WORK_TREE: s.repo } });
    git(['commit', '-q', '-m', 'snapshot'], { env: { GIT_DIR: legacy, GIT_WORK_TREE: s.repo } });
    rmSync(s.repo, { recursive: true, force: true });
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    const item = itemAt(report, legacy);
    expect(item).toMatchObject({ kind: 'checkpoint-repo', verdict: 'kept', reason: 'legacy-project-repo' });
    expect(item.bytes).toBeGreaterThan(1000);
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses what lies behind a symlink in the path, and never follows it', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const elsewhere = path.join(s.root, 'elsewhere');
    const realRepo = makeSnapshot(elsewhere, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    const { symlinkSync, mkdirSync } = await import('node:fs');
    mkdirSync(path.join(s.data, 'snapshot'), { recursive: true });
    symlinkSync(path.join(elsewhere, 'snapshot', s.projectId), path.join(s.data, 'snapshot', s.projectId));
    const throughLink = path.join(s.data, 'snapshot', s.projectId, path.basename(realRepo));
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, throughLink)).toMatchObject({ verdict: 'refused', reason: 'symlink-in-path' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses when agent-manager.json cannot be understood', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(s.repo, '.kilo', 'agent-manager.json'), '{"worktrees": {"wt-1": {"branch": "x"');

    const { report } = await runKilo(s);

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'agent-manager-unreadable' });
    expect(existsSync(repo)).toBe(true);
  });
});
