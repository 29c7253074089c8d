import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { put } from '../../helpers/fs-fixtures.js';
import {
  addKiloWorktree,
  lockDirOf,
  makeKiloDb,
  makeRepo,
  makeSnapshot,
  projectIdOf,
  removeKiloWorktree,
  sha1,
  writeKiloLock,
} from './fixtures.js';
import { expectOnlyRemoved, runKilo, scene, snapshotOf } from './scene.js';

const UUID = '5f0c2b7e-8a41-4c3d-9e6f-1a2b3c4d5e6f';

/** A quarantine as Kilo's cleanup leaves it when killed mid-delete: renamed, half emptied. */
function halfDeletedQuarantine(gitdir: string): string {
  const quarantine = path.join(path.dirname(gitdir), `.${path.basename(gitdir)}.cleanup-${UUID}`);
  renameSync(gitdir, quarantine);
  rmSync(path.join(quarantine, 'hooks'), { recursive: true, force: true });
  rmSync(path.join(quarantine, 'index'), { force: true });
  return quarantine;
}

describe('kilo leftovers', () => {
  it('finishes a half-deleted .<hash>.cleanup-<uuid> quarantine and nothing beside it', async () => {
    const s = scene();
    const main = makeSnapshot(s.data, s.projectId, s.repo);
    const gone = addKiloWorktree(s.repo, 'gone');
    const quarantine = halfDeletedQuarantine(makeSnapshot(s.data, s.projectId, gone));
    removeKiloWorktree(s.repo, gone);
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(itemAt(report, main).verdict).toBe('kept');
    expectOnlyRemoved(s, before, snapshotOf(s), [quarantine]);
  });

  it('leaves a quarantine alone while Kilo holds the lock of the repository it was', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const gitdir = makeSnapshot(s.data, s.projectId, gone);
    const quarantine = halfDeletedQuarantine(gitdir);
    writeKiloLock(lockDirOf(s.state, gitdir), new Date());

    const { report } = await runKilo(s);

    expect(itemAt(report, quarantine)).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(existsSync(quarantine)).toBe(true);
  });

  it("finishes the Agent Manager's .kilo-delete-<uuid> leftovers, found through the snapshot repositories and the database", async () => {
    const s = scene();
    // R known from a snapshot repository's core.worktree.
    const live = addKiloWorktree(s.repo, 'live');
    makeSnapshot(s.data, s.projectId, live);
    const trash = path.join(s.repo, '.kilo', 'worktrees', `.kilo-delete-${UUID}`);
    renameSync(addKiloWorktree(s.repo, 'deleted-in-ui'), trash);
    put(path.join(trash, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    // R known only from a session row of the database.
    const other = makeRepo(path.join(s.root, 'projects', 'other'));
    const otherTrash = path.join(other, '.kilo', 'worktrees', '.kilo-delete-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
    mkdirSync(path.join(otherTrash, 'src'), { recursive: true });
    writeFileSync(path.join(otherTrash, 'src', 'half.ts'), 'export {};\n');
    makeKiloDb(path.join(s.data, 'kilo.db'), {
      projects: [{ id: projectIdOf(other), worktree: other }],
      sessions: [{ projectId: projectIdOf(other), directory: path.join(other, '.kilo', 'worktrees', 'gone-long-ago') }],
    });
    // Not a leftover: a name that only starts the same way.
    const notTrash = path.join(s.repo, '.kilo', 'worktrees', '.kilo-delete-notes');
    mkdirSync(notTrash, { recursive: true });
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    for (const leftover of [trash, otherTrash]) {
      expect(itemAt(report, leftover)).toMatchObject({
        kind: 'quarantine',
        verdict: 'deleted',
        reason: 'kilo-delete-leftover',
      });
    }
    expect(report.items.some((item) => item.path === notTrash)).toBe(false);
    expectOnlyRemoved(s, before, snapshotOf(s), [trash, otherTrash]);
  });

  it('finishes quarantines even while the database cannot be read', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const quarantine = halfDeletedQuarantine(makeSnapshot(s.data, s.projectId, gone));
    const trash = path.join(s.repo, '.kilo', 'worktrees', `.kilo-delete-${UUID}`);
    mkdirSync(path.join(trash, 'x'), { recursive: true });
    const live = addKiloWorktree(s.repo, 'live');
    const liveRepo = makeSnapshot(s.data, s.projectId, live);
    writeFileSync(path.join(s.data, 'kilo.db'), Buffer.alloc(4096, 0xff));
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(1);
    expect(report.providers[0]).toMatchObject({ ok: false });
    expect(itemAt(report, quarantine)).toMatchObject({ verdict: 'deleted', reason: 'quarantine-leftover' });
    expect(itemAt(report, trash)).toMatchObject({ verdict: 'deleted', reason: 'kilo-delete-leftover' });
    expect(itemAt(report, liveRepo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expectOnlyRemoved(s, before, snapshotOf(s), [quarantine, trash]);
  });

  it('is quiet where Kilo is not installed, and reports a quarantine it would finish in report-only mode', async () => {
    const s = scene();
    rmSync(path.join(s.home, '.local'), { recursive: true, force: true });
    const nothing = await runKilo(s);
    expect(nothing.report.providers).toEqual([]);
    expect(nothing.report.items).toEqual([]);
    expect(nothing.exitCode).toBe(0);

    const gone = path.join(s.repo, '.kilo', 'worktrees', 'gone');
    const quarantine = path.join(s.data, 'snapshot', 'p1', `.${sha1(gone)}.cleanup-${UUID}`);
    mkdirSync(path.join(quarantine, 'objects'), { recursive: true });
    const before = snapshotOf(s);
    const { report } = await runKilo(s, { reportOnly: true });
    expect(itemAt(report, quarantine)).toMatchObject({ kind: 'quarantine', verdict: 'would-delete' });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });
});
