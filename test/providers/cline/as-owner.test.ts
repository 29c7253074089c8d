import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quarantinedName } from '../../../src/safety/removal/quarantine.js';
import { itemAt } from '../../helpers/pass.js';
import {
  historyItem as rooItem,
  rooScene,
  runRoo,
  settle as settleRoo,
  taskRepo,
  writeGlobalHistory,
} from '../roo/fixtures.js';
import { clineScene, historyItem, runCline, settle, workspaceRepo, writeTaskHistory } from './fixtures.js';

const USER = 4321;
const isRoot = process.getuid?.() === 0;

function chownTree(target: string, uid: number): void {
  chownSync(target, uid, uid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) {
    const child = path.join(target, name);
    if (!lstatSync(child).isSymbolicLink()) chownTree(child, uid);
  }
}

function owners(target: string, found = new Set<number>()): Set<number> {
  found.add(lstatSync(target).uid);
  if (lstatSync(target).isDirectory()) for (const name of readdirSync(target)) owners(path.join(target, name), found);
  return found;
}

describe.runIf(isRoot)("cline and roo, run as root over another user's home", () => {
  it('deletes a dead repository as its owner, and refuses whole, untouched, one the owner could not have removed a part of (rule 20)', async () => {
    const s = clineScene();
    const dead = workspaceRepo(s.gs, path.join(s.projects, 'a'), ['1790000000801']);
    const guarded = workspaceRepo(s.gs, path.join(s.projects, 'b'), ['1790000000802']);
    const live = workspaceRepo(s.gs, path.join(s.projects, 'c'), ['1790000000803']);
    writeTaskHistory(s.gs, [historyItem('1790000000803', path.join(s.projects, 'c'))]);
    settle(s);
    chownTree(s.root, USER);
    // A folder of root's inside the user's repository, closed to the user: root could remove it, the user could not.
    const rootsOwn = path.join(guarded, '.git', 'objects', 'root-owned');
    mkdirSync(rootsOwn);
    writeFileSync(path.join(rootsOwn, 'file'), 'root\n');
    chmodSync(rootsOwn, 0o755);
    settle(s);

    const { report } = await runCline(s);

    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(dead)).toBe(false);
    expect(itemAt(report, guarded)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(itemAt(report, guarded).detail).toContain(`${rootsOwn} belongs to uid 0`);
    const quarantine = readdirSync(path.dirname(guarded)).find(
      (name) => quarantinedName(name) === path.basename(guarded),
    );
    expect(quarantine).toBeUndefined();
    expect(existsSync(path.join(rootsOwn, 'file'))).toBe(true);
    expect(itemAt(report, live).verdict).toBe('kept');
    // Nothing the pass touched changed hands: every remaining entry of the home is the user's, but root's own folder.
    const left = owners(s.home);
    expect([...left].sort()).toEqual([0, USER].sort());
  });

  it('roo: deletes a dead repository as its owner', async () => {
    const s = rooScene();
    writeGlobalHistory(s, [rooItem('0199a000-0000-7000-8000-000000000811', path.join(s.projects, 'x'))]);
    const live = taskRepo(s, '0199a000-0000-7000-8000-000000000811', path.join(s.projects, 'x'));
    const dead = taskRepo(s, '0199a000-0000-7000-8000-000000000812', path.join(s.projects, 'x'));
    settleRoo(s);
    chownTree(s.root, USER);

    const { report, exitCode } = await runRoo(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect([...owners(s.root)]).toEqual([USER]);
  });
});
