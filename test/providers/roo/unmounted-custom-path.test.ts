import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { makeWorkspace } from '../../engines/vscode-storage/fixtures.js';
import {
  type Extension,
  historyItem,
  KILO,
  ROO,
  rooScene,
  runRoo,
  settle,
  taskFiles,
  taskRepo,
  writeGlobalHistory,
  writeIndex,
  writeUserSettings,
} from './fixtures.js';

const ID = (n: number) => `0199b000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const isRoot = process.geteuid?.() === 0;

/**
 * A custom storage path that is an empty folder proves nothing. The mount
 * point of a volume that is not mounted is exactly that, and a custom storage folder the extension
 * has used always holds tasks/. Here the two live tasks' history lives on that volume only; the
 * state database was rewritten meanwhile and names neither.
 */
function sceneWithTasksOnVolume(extension: Extension) {
  const s = rooScene(extension);
  const volume = path.join(s.root, 'nas', 'roo');
  mkdirSync(volume, { recursive: true });
  const ws = makeWorkspace(path.join(s.projects, 'shop'));
  const live = [historyItem(ID(1), ws), historyItem(ID(2), ws)];
  const repos = live.map((item) => taskRepo(s, item.id as string, ws));
  writeGlobalHistory(s, []);
  return { s, volume, ws, live, repos };
}

/** What a user sees as the volume: the task files written on a tmpfs mounted there, then unmounted. */
function writeOnVolumeThenUnmount(volume: string, items: Array<Record<string, unknown>>): void {
  execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', volume]);
  try {
    for (const item of items) taskFiles(volume, item);
    writeIndex(volume, items);
  } finally {
    execFileSync('umount', [volume]);
  }
}

describe('roo and the old Kilo extension: an empty custom storage folder proves nothing', () => {
  it.runIf(isRoot).each([
    ['Roo Code', ROO],
    ['the old Kilo Code extension', KILO],
  ])(
    '%s: a user-level custom path whose volume is unmounted keeps the live tasks’ repositories',
    async (_, extension) => {
      const { s, volume, live, repos } = sceneWithTasksOnVolume(extension);
      writeUserSettings(s.userData, { [`${extension.section}.customStoragePath`]: volume });
      writeOnVolumeThenUnmount(volume, live);
      expect(readdirSync(volume)).toEqual([]);
      settle(s);
      const before = inventory(s.root);

      const { report, exitCode } = await runRoo(s);

      expect(exitCode).toBe(1);
      expect(report.providers).toEqual([
        expect.objectContaining({ root: s.gs, ok: false, error: expect.stringContaining('holds no tasks/ folder') }),
      ]);
      for (const repo of repos)
        expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'custom-path-unmounted' });
      expectUnchanged(before, inventory(s.root));
    },
  );

  it('a custom path that holds things but no tasks/ folder proves nothing either', async () => {
    const { s, volume, repos } = sceneWithTasksOnVolume(ROO);
    put(path.join(volume, 'lost+found', '.keep'), '');
    writeUserSettings(s.userData, { 'roo-cline.customStoragePath': volume });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRoo(s);

    for (const repo of repos)
      expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'custom-path-unmounted' });
    expectUnchanged(before, inventory(s.root));
  });

  it('a workspace’s own custom path that is an empty folder keeps its tasks’ repositories', async () => {
    const { s, volume, ws, repos } = sceneWithTasksOnVolume(ROO);
    put(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'roo-cline.customStoragePath': volume }));
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRoo(s);

    for (const repo of repos) {
      const item = itemAt(report, repo);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'custom-path-unmounted' });
      expect(item.detail).toContain(volume);
    }
    expectUnchanged(before, inventory(s.root));
  });

  it('the same custom path, mounted and holding the tasks, keeps them by their history and deletes the dead one', async () => {
    const { s, volume, ws, live, repos } = sceneWithTasksOnVolume(ROO);
    writeUserSettings(s.userData, { 'roo-cline.customStoragePath': volume });
    for (const item of live) taskFiles(volume, item);
    writeIndex(volume, live);
    const dead = taskRepo(s, ID(3), ws);
    settle(s);

    const { report, exitCode } = await runRoo(s);

    expect(exitCode).toBe(0);
    for (const repo of repos)
      expect(itemAt(report, repo)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(dead)).toBe(false);
  });
});
