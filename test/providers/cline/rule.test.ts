import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { expectOnlyRemoved, expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { makeWorkspace, writeInstalledExtensions, writeStateDb } from '../../engines/vscode-storage/fixtures.js';
import {
  CLINE_ID,
  branchRepo,
  clineScene,
  historyItem,
  legacyTaskRepo,
  runCline,
  settle,
  taskFolder,
  workspaceRepo,
  writeJson,
  writeSessionsDb,
  writeTaskHistory,
} from './fixtures.js';

describe('cline workspace repositories: what is deleted and what is kept', () => {
  it('deletes the repository of a deleted task (its folder left with settings.json, as Cline 3 leaves it), whether or not its workspace exists, and keeps one a task still uses', async () => {
    const s = clineScene();
    const kept = makeWorkspace(path.join(s.projects, 'shop'));
    const gone = path.join(s.projects, 'old-experiment'); // deleted by the user: proves nothing either way
    const deletedElsewhere = makeWorkspace(path.join(s.projects, 'cart'));
    const live = workspaceRepo(s.gs, kept, ['1790000000001']);
    const deadGone = workspaceRepo(s.gs, gone, ['1790000000002']);
    const deadPresent = workspaceRepo(s.gs, deletedElsewhere, ['1790000000003', '1790000000004']);
    writeTaskHistory(s.gs, [historyItem('1790000000001', kept)]);
    taskFolder(s.gs, '1790000000001');
    taskFolder(s.gs, '1790000000003', { conversation: false });
    settle(s);
    const before = inventory(s.root);

    const { report, exitCode } = await runCline(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'cline', root: s.gs, ok: true }]);
    expect(itemAt(report, live)).toMatchObject({ kind: 'checkpoint-repo', verdict: 'kept', reason: 'task-in-history' });
    for (const dead of [deadGone, deadPresent]) {
      const item = itemAt(report, dead);
      expect(item).toMatchObject({ kind: 'checkpoint-repo', verdict: 'deleted', reason: 'task-deleted' });
      expect(item.bytes).toBeGreaterThan(0);
      expect(existsSync(dead)).toBe(false);
    }
    expect(itemAt(report, deadPresent).detail).toContain('1790000000003, 1790000000004');
    expectOnlyRemoved(s.root, before, inventory(s.root), [deadGone, deadPresent]);
    expect(existsSync(path.join(s.gs, 'tasks', '1790000000003', 'settings.json'))).toBe(true);

    // A second pass over the same state changes nothing.
    const settled = inventory(s.root);
    const again = await runCline(s);
    expect(again.report.totals.deleted).toBe(0);
    expectUnchanged(settled, inventory(s.root));
  });

  it('lists in a report-only pass exactly what a real pass deletes, and changes nothing', async () => {
    const s = clineScene();
    const dead = workspaceRepo(s.gs, path.join(s.projects, 'a'), ['1790000000010']);
    const live = workspaceRepo(s.gs, path.join(s.projects, 'b'), ['1790000000011']);
    writeTaskHistory(s.gs, [historyItem('1790000000011', path.join(s.projects, 'b'))]);
    settle(s);
    const before = inventory(s.root);

    const dry = await runCline(s, { reportOnly: true });

    expect(itemAt(dry.report, dead)).toMatchObject({ verdict: 'would-delete', reason: 'task-deleted' });
    expect(itemAt(dry.report, live)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expectUnchanged(before, inventory(s.root));
    const real = await runCline(s);
    expect(real.report.items.map((item) => [item.path, item.reason])).toEqual(
      dry.report.items.map((item) => [item.path, item.reason]),
    );
    expect(itemAt(real.report, dead).verdict).toBe('deleted');
  });

  it('counts every history source: the file, the state database of every profile, a conversation folder, a Cline 4 session, and a history item started in the workspace', async () => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    // Before 3.28 the history was a globalState key: the row of the default profile…
    writeStateDb(s.stateDb, { [CLINE_ID]: { taskHistory: [historyItem('1790000000020', ws('p1'))] } });
    const byDefaultProfile = workspaceRepo(s.gs, ws('p1'), ['1790000000020']);
    // …or of another profile, whose migration never ran.
    writeStateDb(path.join(s.userData, 'User', 'profiles', '5a1b2c3d', 'globalStorage', 'state.vscdb'), {
      'SaoudRizwan.Claude-Dev': { taskHistory: [historyItem('1790000000021', ws('p2'))] },
    });
    const byProfile = workspaceRepo(s.gs, ws('p2'), ['1790000000021']);
    // Cline rebuilds its history from a task folder that holds a conversation.
    taskFolder(s.gs, '1790000000022');
    const byConversation = workspaceRepo(s.gs, ws('p3'), ['1790000000022']);
    // Cline 4 reuses a legacy task's id when it resumes it.
    const sessions = path.join(s.home, '.cline', 'data', 'db', 'sessions.db');
    writeSessionsDb(sessions, ['1790000000023']);
    const bySession = workspaceRepo(s.gs, ws('p4'), ['1790000000023']);
    // A multi-root secondary root's repository names the task in its commits, never by its worktree;
    // a task started in a workspace keeps its repository whatever its commits say.
    writeTaskHistory(s.gs, [historyItem('1790000000024', ws('p5'))]);
    const byWorktree = workspaceRepo(s.gs, ws('p5'), []);
    const dead = workspaceRepo(s.gs, ws('p6'), ['1790000000025']);
    settle(s);

    const { report, exitCode } = await runCline(s);

    expect(exitCode).toBe(0);
    for (const [repo, source] of [
      [byDefaultProfile, 'state.vscdb (taskHistory)'],
      [byProfile, path.join('5a1b2c3d', 'globalStorage', 'state.vscdb')],
      [byConversation, 'its conversation folder'],
      [bySession, 'a Cline 4 session'],
      [byWorktree, 'was started in its worktree'],
    ] as const) {
      const item = itemAt(report, repo);
      expect(item, repo).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
      expect(item.detail).toContain(source);
    }
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    // The conversation folder whose task no history names is reported, never deleted.
    expect(itemAt(report, path.join(s.gs, 'tasks', '1790000000022'))).toMatchObject({
      kind: 'task-folder',
      verdict: 'unfinished',
      reason: 'orphan-task-folder',
    });
    expect(existsSync(path.join(s.gs, 'tasks', '1790000000022', 'ui_messages.json'))).toBe(true);
  });

  it('reads the task branches of Cline 3.5 to 3.6.8, and deletes a repository that only ever had its first commit', async () => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    const alive = branchRepo(s.gs, ws('branches-live'), ['1790000000030', '1790000000031']);
    const dead = branchRepo(s.gs, ws('branches-dead'), ['1790000000032']);
    const empty = workspaceRepo(s.gs, ws('never-checkpointed'), []);
    writeTaskHistory(s.gs, [historyItem('1790000000031', ws('elsewhere'))]);
    settle(s);

    const { report } = await runCline(s);

    expect(itemAt(report, alive)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(report, alive).detail).toContain('1790000000031');
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(itemAt(report, empty)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(itemAt(report, empty).detail).toContain('names no task');
  });

  it('deletes a dead per-task repository of Cline 3.0 to 3.4, and reports a live one: no Cline since 3.5 reads them', async () => {
    const s = clineScene();
    const ws = makeWorkspace(path.join(s.projects, 'legacy'));
    taskFolder(s.gs, '1740000000001');
    const alive = legacyTaskRepo(s.gs, '1740000000001', ws);
    taskFolder(s.gs, '1740000000002', { conversation: false });
    const dead = legacyTaskRepo(s.gs, '1740000000002', ws);
    settle(s);
    const before = inventory(s.root);

    const { report } = await runCline(s);

    expect(itemAt(report, alive)).toMatchObject({ verdict: 'unfinished', reason: 'alive-legacy-format' });
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expectOnlyRemoved(s.root, before, inventory(s.root), [dead]);
    // The folder holding a repository is spoken of by that repository alone: one path, one verdict.
    expect(report.items.filter((item) => item.kind === 'task-folder')).toEqual([]);
  });

  it('reports a repository a live task names when the installed Cline is 4 or later, with its size and how to drop it', async () => {
    const s = clineScene();
    const ws = path.join(s.projects, 'v4');
    writeInstalledExtensions(path.join(s.home, '.vscode', 'extensions'), { [CLINE_ID]: '4.1.13' });
    const alive = workspaceRepo(s.gs, ws, ['1790000000040']);
    const dead = workspaceRepo(s.gs, path.join(s.projects, 'v4-deleted'), ['1790000000041']);
    writeTaskHistory(s.gs, [historyItem('1790000000040', ws)]);
    settle(s);

    const { report } = await runCline(s);

    const item = itemAt(report, alive);
    expect(item).toMatchObject({ verdict: 'unfinished', reason: 'alive-legacy-format' });
    expect(item.bytes).toBeGreaterThan(0);
    expect(item.detail).toContain('4.1.13');
    expect(item.detail).toContain("delete the task in Cline's history");
    expect(item.detail).toMatch(/the last on \d{4}-/);
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
  });

  it('reports a repository with commits no Cline makes, and never deletes it', async () => {
    const s = clineScene();
    const repo = workspaceRepo(s.gs, path.join(s.projects, 'hand'), ['1790000000050'], { extra: ['my own snapshot'] });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runCline(s);

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'unfinished', reason: 'unknown-commits' });
    expect(itemAt(report, repo).detail).toContain('my own snapshot');
    expectUnchanged(before, inventory(s.root));
  });

  it('finishes a quarantine left by an interrupted deletion, even while the history cannot be read', async () => {
    const s = clineScene();
    const quarantine = path.join(s.gs, 'checkpoints', '.1234567890.cleanup-2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d');
    mkdirSync(path.join(quarantine, '.git', 'objects'), { recursive: true });
    writeJson(path.join(quarantine, '.git', 'objects', 'half.json'), { x: 1 });
    writeJson(path.join(s.gs, 'state', 'taskHistory.json'), { not: 'a list' });
    const dead = workspaceRepo(s.gs, path.join(s.projects, 'x'), ['1790000000060']);
    settle(s);

    const { report, exitCode } = await runCline(s);

    expect(exitCode).toBe(1);
    expect(report.providers[0]).toMatchObject({ ok: false });
    expect(itemAt(report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(existsSync(quarantine)).toBe(false);
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(existsSync(dead)).toBe(true);
  });

  it('judges a repository whose workspace went with the folders above it', async () => {
    const s = clineScene();
    const deep = path.join(s.root, 'old-disk', 'clients', 'acme');
    const dead = workspaceRepo(s.gs, deep, ['1790000000080']);
    rmSync(path.join(s.root, 'old-disk'), { recursive: true, force: true });
    settle(s);

    const { report } = await runCline(s);

    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
  });

  it('takes no notice of a workspace folder being gone: an alive repository whose workspace was deleted is kept', async () => {
    const s = clineScene();
    const ws = makeWorkspace(path.join(s.projects, 'moved'));
    const repo = workspaceRepo(s.gs, ws, ['1790000000070']);
    writeTaskHistory(s.gs, [historyItem('1790000000070', ws)]);
    rmSync(ws, { recursive: true });
    settle(s);

    const { report } = await runCline(s);

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
  });
});
