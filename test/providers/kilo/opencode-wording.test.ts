import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { git, lockDirOf, makeKiloDb, makeSnapshot, sha1, writeKiloLock } from './fixtures.js';
import { runKilo, scene, type Scene } from './scene.js';

/**
 * opencode's own on-disk habits, as the real opencode 1.18.33 leaves them: the project id cached in
 * `<R>/.git/opencode`, checkpoint repositories that keep `objects/info/alternates` naming the
 * owner's objects for good (no seeding, no seed-objects, no pin), managed worktrees made and
 * removed through the server API (`git worktree add -b opencode/<name>`, then `git worktree remove
 * --force` and `git branch -D`), and opencode.db with the project, project_directory and session
 * tables the rule reads.
 */
function opencodeCheckpoint(s: Scene, worktree: string): string {
  const gitdir = makeSnapshot(s.data, s.projectId, worktree);
  put(path.join(gitdir, 'objects', 'info', 'alternates'), `${path.join(s.repo, '.git', 'objects')}\n`);
  return gitdir;
}

function serverWorktree(s: Scene, name: string): string {
  const worktree = path.join(s.data, 'worktree', s.projectId, name);
  mkdirSync(path.dirname(worktree), { recursive: true });
  git(['-C', s.repo, 'worktree', 'add', '-q', '-b', `opencode/${name}`, worktree]);
  return worktree;
}

function serverRemove(s: Scene, worktree: string): void {
  git(['-C', s.repo, 'worktree', 'remove', '--force', worktree]);
  git(['-C', s.repo, 'branch', '-D', `opencode/${path.basename(worktree)}`]);
}

/** One checkpoint repository in every state the rule names, in the app's data folder. */
function everyState(app: 'kilo' | 'opencode') {
  const s = scene(app);
  if (app === 'opencode') put(path.join(s.repo, '.git', 'opencode'), `${s.projectId}\n`);
  const items: Record<string, string> = {};
  items.present = opencodeCheckpoint(s, s.repo);
  const removed = serverWorktree(s, 'calm-river');
  items.removed = opencodeCheckpoint(s, removed);
  serverRemove(s, removed);
  const locked = serverWorktree(s, 'brisk-otter');
  items.locked = opencodeCheckpoint(s, locked);
  serverRemove(s, locked);
  writeKiloLock(lockDirOf(s.state, items.locked), new Date());
  // Deleted from disk while git still lists it.
  const vanished = serverWorktree(s, 'quiet-lake');
  items.registered = opencodeCheckpoint(s, vanished);
  rmSync(vanished, { recursive: true });
  // A worktree made by hand elsewhere, then removed.
  const handmade = path.join(s.root, 'scratch', 'try-this');
  git(['-C', s.repo, 'worktree', 'add', '-q', '-b', 'try-this', handmade]);
  items.unmanaged = opencodeCheckpoint(s, handmade);
  git(['-C', s.repo, 'worktree', 'remove', '--force', handmade]);
  // A deletion that was interrupted.
  items.quarantine = path.join(
    s.data,
    'snapshot',
    s.projectId,
    `.${sha1(path.join(s.root, 'old'))}.cleanup-2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d`,
  );
  put(path.join(items.quarantine, 'objects', 'pack', 'pack-half.pack'), 'x'.repeat(512));
  makeKiloDb(path.join(s.data, `${app}.db`), {
    projects: [{ id: s.projectId, worktree: s.repo }],
    directories: [{ projectId: s.projectId, directory: vanished }],
  });
  return { s, items };
}

const VERDICTS: Record<string, string> = {
  present: 'kept worktree-present',
  removed: 'would-delete worktree-removed',
  locked: 'refused kilo-lock-held',
  registered: 'refused worktree-still-registered',
  unmanaged: 'refused unmanaged-worktree',
  quarantine: 'would-delete quarantine-leftover',
};

describe('the kilo provider names the app each checkpoint repository belongs to', () => {
  it('an opencode item is described as opencode’s, with what opencode does, and never as Kilo’s', async () => {
    const { s, items } = everyState('opencode');

    const { report } = await runKilo(s, { reportOnly: true });

    expect(report.items).toHaveLength(Object.keys(items).length);
    for (const [state, gitdir] of Object.entries(items)) {
      const item = itemAt(report, gitdir);
      // opencode takes no snapshot lock: a folder shaped like Kilo Code's in its state keeps nothing.
      const expected = state === 'locked' ? 'would-delete worktree-removed' : VERDICTS[state];
      expect(`${item.verdict} ${item.reason}`, state).toBe(expected);
      expect(item.detail, state).toMatch(/opencode/);
      // Paths here hold a lowercase "kilo" (the test's temp folders); the app's name never appears.
      expect(item.detail, state).not.toMatch(/Kilo|materializ|seed/);
      if (item.kind === 'checkpoint-repo') expect(item.detail, state).toMatch(/^opencode checkpoint repository: /);
    }
    expect(itemAt(report, items.removed as string).detail).toContain(
      "objects/info/alternates, which opencode keeps for good, only names the owner's objects",
    );
    expect(itemAt(report, items.unmanaged as string).detail).toContain("opencode's worktree folder");
  });

  it('a deleting pass over opencode takes no lock in its state folder, which stays as it was', async () => {
    const { s, items } = everyState('opencode');
    const before = inventory(s.state);

    const { report } = await runKilo(s);

    expect(itemAt(report, items.removed as string)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(existsSync(items.removed as string)).toBe(false);
    expect(inventory(s.state)).toEqual(before);
  });

  it('the same states in Kilo Code’s data folder are described as Kilo Code’s', async () => {
    const { s, items } = everyState('kilo');

    const { report } = await runKilo(s, { reportOnly: true });

    for (const [state, gitdir] of Object.entries(items)) {
      const item = itemAt(report, gitdir);
      expect(`${item.verdict} ${item.reason}`, state).toBe(VERDICTS[state]);
      expect(item.detail, state).toMatch(/Kilo Code/);
      expect(item.detail, state).not.toMatch(/opencode/);
    }
    expect(itemAt(report, items.removed as string).detail).toContain('It was never materialized');
  });
});
