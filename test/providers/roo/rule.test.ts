import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { put } from '../../helpers/fs-fixtures.js';
import { expectOnlyRemoved, expectUnchanged } from '../../engines/vscode-storage/expect.js';
import {
  makeShadowRepo,
  makeWorkspace,
  writeInstalledExtensions,
  writeStateDb,
} from '../../engines/vscode-storage/fixtures.js';
import {
  KILO,
  historyItem,
  rooScene,
  runRoo,
  settle,
  taskFiles,
  taskRepo,
  writeGlobalHistory,
  writeIndex,
  writeUserSettings,
} from './fixtures.js';

const ID = (n: number) => `0199a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('roo per-task repositories: what is deleted and what is kept', () => {
  it('deletes the repository a custom storage path left behind when its task was deleted, and keeps the one of a live task', async () => {
    const s = rooScene();
    const custom = path.join(s.root, 'big-disk', 'roo');
    writeUserSettings(s.userData, { 'roo-cline.customStoragePath': custom, 'editor.fontSize': 13 });
    const ws = makeWorkspace(path.join(s.projects, 'shop'));
    const live = historyItem(ID(1), ws);
    taskFiles(custom, live);
    writeIndex(custom, [live]);
    writeGlobalHistory(s, [live]);
    const liveRepo = taskRepo(s, ID(1), ws);
    // Task 2 was deleted in Roo: its folder in the custom path went, its repository in global storage stayed.
    const deadRepo = taskRepo(s, ID(2), ws);
    settle(s);
    const before = inventory(s.root);

    const { report, exitCode } = await runRoo(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'roo', root: s.gs, ok: true }]);
    expect(itemAt(report, liveRepo)).toMatchObject({
      kind: 'checkpoint-repo',
      verdict: 'kept',
      reason: 'task-in-history',
    });
    const dead = itemAt(report, deadRepo);
    expect(dead).toMatchObject({ kind: 'checkpoint-repo', verdict: 'deleted', reason: 'task-deleted' });
    expect(dead.bytes).toBeGreaterThan(0);
    expect(dead.detail).toContain(ID(2));
    expectOnlyRemoved(s.root, before, inventory(s.root), [deadRepo]);
    // The emptied task folder is nothing to report.
    expect(readdirSync(path.dirname(deadRepo))).toEqual([]);
    const again = await runRoo(s);
    expect(again.report.totals.deleted).toBe(0);
    expect(again.report.items.filter((item) => item.kind === 'task-folder')).toEqual([]);
  });

  it('keeps a repository any source names: a state database of any profile, a history_item.json, the index, a parent’s childIds, a write in flight', async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'app');
    const repos = new Map<string, string>();
    for (const n of [10, 11, 12, 13, 14, 15, 16]) repos.set(ID(n), taskRepo(s, ID(n), ws));
    writeGlobalHistory(s, [historyItem(ID(10), ws)]);
    writeStateDb(path.join(s.userData, 'User', 'profiles', '-7a1b2c3d', 'globalStorage', 'state.vscdb'), {
      'rooveterinaryinc.roo-cline': { taskHistory: [historyItem(ID(11), ws)] },
    });
    taskFiles(s.gs, historyItem(ID(12), ws));
    writeIndex(s.gs, [historyItem(ID(13), ws)]);
    taskFiles(s.gs, historyItem(ID(20), ws, { childIds: [ID(14)] }));
    mkdirSync(path.join(s.gs, 'tasks', ID(15), 'history_item.json.lock'));
    put(path.join(s.gs, 'tasks', ID(16), `.history_item.json.new_1790000000000_abc.tmp`), '{}');
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRoo(s);

    const expected: Array<[number, string]> = [
      [10, 'state.vscdb (taskHistory)'],
      [11, '-7a1b2c3d'],
      [12, 'history_item.json'],
      [13, '_index.json'],
      [14, `a child of ${ID(20)}`],
      [15, 'in flight'],
      [16, 'in flight'],
    ];
    for (const [n, source] of expected) {
      const item = itemAt(report, repos.get(ID(n)) as string);
      expect(item, ID(n)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
      expect(item.detail).toContain(source);
    }
    expectUnchanged(before, inventory(s.root));
  });

  it('deletes the repository of a task whose history entry alone was removed (“Task not found”), and reports its conversation once the repository is gone', async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'gone');
    const folder = taskFiles(s.gs, historyItem(ID(30), ws), { historyItem: false });
    const repo = taskRepo(s, ID(30), ws);
    settle(s);

    const first = await runRoo(s);

    const item = itemAt(first.report, repo);
    expect(item).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(item.detail).toContain('reported as an orphan task folder');
    // One path, one verdict: while the repository is in it, the folder is not an item of its own.
    expect(first.report.items.filter((entry) => entry.path === folder)).toEqual([]);

    const second = await runRoo(s);
    expect(itemAt(second.report, folder)).toMatchObject({
      kind: 'task-folder',
      verdict: 'unfinished',
      reason: 'orphan-task-folder',
    });
    expect(existsSync(path.join(folder, 'ui_messages.json'))).toBe(true);
  });

  it('never deletes while a configured custom storage path cannot be read (an unmounted volume)', async () => {
    const s = rooScene();
    writeUserSettings(s.userData, { 'roo-cline.customStoragePath': path.join(s.root, 'not-mounted', 'roo') });
    const repo = taskRepo(s, ID(40), path.join(s.projects, 'x'));
    settle(s);
    const before = inventory(s.root);

    const { report, exitCode } = await runRoo(s);

    expect(exitCode).toBe(1);
    expect(report.providers).toEqual([
      expect.objectContaining({ root: s.gs, ok: false, error: expect.stringContaining('not-mounted') }),
    ]);
    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'custom-path-unmounted' });
    expectUnchanged(before, inventory(s.root));
  });

  it('reads the custom storage path a workspace sets in its own .vscode/settings.json, to find a task alive, never dead', async () => {
    const s = rooScene();
    const own = path.join(s.root, 'team-share', 'roo');
    const ws = makeWorkspace(path.join(s.projects, 'team'));
    put(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'roo-cline.customStoragePath': own }));
    taskFiles(own, historyItem(ID(50), ws));
    const alive = taskRepo(s, ID(50), ws);
    const dead = taskRepo(s, ID(51), ws);
    const unmountedWs = makeWorkspace(path.join(s.projects, 'nas'));
    put(
      path.join(unmountedWs, '.vscode', 'settings.json'),
      `{ "roo-cline.customStoragePath": ${JSON.stringify(path.join(s.root, 'nas', 'roo'))} }`,
    );
    const behindNas = taskRepo(s, ID(52), unmountedWs);
    settle(s);

    const { report } = await runRoo(s);

    expect(itemAt(report, alive)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(report, alive).detail).toContain(own);
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(itemAt(report, behindNas)).toMatchObject({ verdict: 'refused', reason: 'custom-path-unmounted' });
  });

  it('reports an orphan task folder, a per-workspace repository and commits the extension never makes; deletes none of them', async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'w');
    const orphan = taskFiles(s.gs, historyItem(ID(60), ws), { historyItem: false });
    const workspace = makeShadowRepo(path.join(s.gs, 'checkpoints', '1a2b3c4d'), {
      worktree: ws,
      userName: 'Roo Code',
      userEmail: 'noreply@example.com',
      emptyTemplate: true,
      checkpoints: [`Task: ${ID(61)}, Time: 1790000000000`],
      branches: [`roo-${ID(61)}`],
    });
    const handmade = taskRepo(s, ID(62), ws, { extra: ['wip: my experiment'] });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRoo(s);

    expect(itemAt(report, orphan)).toMatchObject({
      kind: 'task-folder',
      verdict: 'unfinished',
      reason: 'orphan-task-folder',
    });
    expect(itemAt(report, workspace)).toMatchObject({
      kind: 'checkpoint-repo',
      verdict: 'unfinished',
      reason: 'unexpected-workspace-repo',
    });
    expect(itemAt(report, handmade)).toMatchObject({ verdict: 'unfinished', reason: 'unknown-commits' });
    expectUnchanged(before, inventory(s.root));
  });

  it('the old Kilo Code extension: deletes a dead repository, and reports a live one once Kilo Code 7 is what is installed', async () => {
    const s = rooScene(KILO);
    const ws = path.join(s.projects, 'k');
    writeGlobalHistory(s, [historyItem(ID(70), ws)]);
    const alive = taskRepo(s, ID(70), ws);
    const dead = taskRepo(s, ID(71), ws);
    settle(s);

    const legacy = await runRoo(s, { reportOnly: true });
    expect(itemAt(legacy.report, alive)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(legacy.report, dead)).toMatchObject({ verdict: 'would-delete', reason: 'task-deleted' });

    writeInstalledExtensions(path.join(s.home, '.vscode', 'extensions'), { 'kilocode.kilo-code': '7.2.1' });
    settle(s);
    const { report } = await runRoo(s);
    const item = itemAt(report, alive);
    expect(item).toMatchObject({ verdict: 'unfinished', reason: 'alive-legacy-format' });
    expect(item.detail).toContain('7.2.1');
    expect(item.detail).toContain('by hand');
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(alive)).toBe(true);
  });

  it('refuses what it cannot prove: another extension’s repository, git writing it, a corrupt history item or settings file', async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'r');
    const kilos = makeShadowRepo(path.join(s.gs, 'tasks', ID(80), 'checkpoints'), {
      worktree: ws,
      userName: 'Kilo Code',
      userEmail: 'noreply@example.com',
      emptyTemplate: true,
      checkpoints: [`Task: ${ID(80)}, Time: 1790000000000`],
    });
    const locked = taskRepo(s, ID(81), ws);
    writeFileSync(path.join(locked, '.git', 'index.lock'), '');
    settle(s);

    const { report } = await runRoo(s);
    expect(itemAt(report, kilos)).toMatchObject({ verdict: 'refused', reason: 'signature-mismatch' });
    expect(itemAt(report, locked)).toMatchObject({ verdict: 'refused', reason: 'git-lock-file' });

    rmSync(path.join(locked, '.git', 'index.lock'));
    put(path.join(s.gs, 'tasks', ID(82), 'history_item.json'), '{"id": "broken');
    settle(s);
    const corrupt = await runRoo(s);
    expect(corrupt.exitCode).toBe(1);
    expect(corrupt.report.providers[0]?.error).toContain('history_item.json');
    expect(itemAt(corrupt.report, locked)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });

    rmSync(path.join(s.gs, 'tasks', ID(82)), { recursive: true });
    put(path.join(s.userData, 'User', 'settings.json'), '{ "roo-cline.customStoragePath": ');
    settle(s);
    const settings = await runRoo(s);
    expect(itemAt(settings.report, locked)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(settings.report.providers[0]?.error).toContain('settings.json');
    expect(existsSync(locked)).toBe(true);
  });
});

describe('roo: recovery', () => {
  it('finishes the quarantine an interrupted pass left in a task folder, even while the history cannot be read', async () => {
    const s = rooScene();
    const quarantine = path.join(s.gs, 'tasks', ID(90), '.checkpoints.cleanup-4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a');
    put(path.join(quarantine, '.git', 'objects', 'pack', 'half.pack'), 'x'.repeat(2048));
    put(path.join(s.gs, 'tasks', '_index.json'), '{"version": 1, "entries": [');
    const repo = taskRepo(s, ID(91), path.join(s.projects, 'q'));
    settle(s);

    const { report, exitCode } = await runRoo(s);

    expect(exitCode).toBe(1);
    expect(itemAt(report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(existsSync(quarantine)).toBe(false);
    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    // The emptied task folder of the quarantine is no item of its own.
    expect(report.items.filter((item) => item.path === path.dirname(quarantine))).toEqual([]);
  });
});
