import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { tempDir } from '../../helpers/temp.js';
import { UNREAD_WARNINGS, warningGit } from '../../helpers/unread-warnings.js';
import { addWorktree, makeRepo } from '../../helpers/git-fixtures.js';

/**
 * Rule 22 for the worktree sets: a git run over a worktree that warns it could not open, read or
 * stat part of it is no answer, so the worktree is `refused unreadable-content` and keeps every
 * byte, even where git called it clean with exit 0.
 */

const USER = 4351;
/** A database container's uid: the owner of a volume inside the user's worktree. */
const FOREIGN = 999;
const isRoot = process.geteuid?.() === 0;

function chownTree(target: string, uid: number): void {
  chownSync(target, uid, uid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) chownTree(path.join(target, name), uid);
}

/** A set root with one idle, clean worktree of its own repository per name, and a control beside them. */
function setWorld(names: readonly string[]) {
  const dir = tempDir('aj-wt-unread-');
  chmodSync(dir, 0o755);
  const root = path.join(dir, 'sets');
  mkdirSync(root);
  const worktrees = new Map<string, string>();
  for (const name of [...names, 'control']) {
    const repo = makeRepo(path.join(dir, 'repos', name));
    worktrees.set(name, addWorktree(repo, path.join(root, name), `agent/${name}`));
  }
  const config = {
    homes: [path.join(dir, 'nobody')],
    minAge: '1h',
    providers: { worktrees: { sets: [{ name: 'agents', roots: [root], idleAfter: '1d' }] } },
  };
  const settle = () => backdate(dir, daysAgo(3));
  return { dir, worktrees, config, settle };
}

describe.runIf(isRoot)('worktree sets: git, run as the owner, meets a folder it may not read', () => {
  it('refuses the worktree (unreadable-content) instead of calling it clean, and keeps every byte', async () => {
    const w = setWorld(['untracked-volume', 'tracked-folder']);
    chownTree(w.dir, USER);
    chownSync(w.dir, 0, 0);
    // A database volume of another uid, mode 700, where the agent's tool mounted it (untracked).
    const volume = path.join(w.worktrees.get('untracked-volume') as string, 'pgdata');
    put(path.join(volume, 'base', '1', 'data'), 'rows no one pushed\n');
    chownTree(volume, FOREIGN);
    chmodSync(volume, 0o700);
    // A tracked folder handed to that uid since: git cannot see whether its files changed.
    const tracked = w.worktrees.get('tracked-folder') as string;
    put(path.join(tracked, 'data', 'seed.sql'), 'edited since the commit\n');
    chownTree(path.join(tracked, 'data'), FOREIGN);
    chmodSync(path.join(tracked, 'data'), 0o700);
    w.settle();
    const before = new Map([...w.worktrees].map(([name, folder]) => [name, inventory(folder)]));

    const { report } = await pass({ dir: w.dir, config: w.config, only: ['worktrees'] });

    for (const name of ['untracked-volume', 'tracked-folder']) {
      const folder = w.worktrees.get(name) as string;
      const item = itemAt(report, folder);
      expect(item, name).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
      expect(item.detail).toMatch(/Permission denied/);
      expect(diffInventories(before.get(name) as Map<string, never>, inventory(folder))).toEqual({
        removed: [],
        changed: [],
        added: [],
      });
    }
    expect(itemAt(report, w.worktrees.get('control') as string)).toMatchObject({ verdict: 'deleted' });
  });
});

describe('worktree sets: a git that exits 0 but says it could not read part of a worktree', () => {
  it('refuses each such worktree (unreadable-content), whatever the warning, and keeps every byte', async () => {
    const names = UNREAD_WARNINGS.map((_, k) => `victim-${String(k).padStart(2, '0')}`);
    const w = setWorld(names);
    w.settle();
    const before = new Map(names.map((name) => [name, inventory(w.worktrees.get(name) as string)]));
    const bin = warningGit(w.dir, new Map(names.map((name, k) => [`/${name}`, UNREAD_WARNINGS[k] as string])));

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () =>
      pass({ dir: w.dir, config: w.config, only: ['worktrees'] }),
    );

    for (const [k, name] of names.entries()) {
      const folder = w.worktrees.get(name) as string;
      const item = itemAt(report, folder);
      expect(item, UNREAD_WARNINGS[k]).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
      expect(item.detail).toContain(UNREAD_WARNINGS[k]);
      expect(diffInventories(before.get(name) as Map<string, never>, inventory(folder))).toEqual({
        removed: [],
        changed: [],
        added: [],
      });
    }
    const control = w.worktrees.get('control') as string;
    expect(itemAt(report, control)).toMatchObject({ verdict: 'deleted', reason: 'idle-clean' });
    expect(existsSync(control)).toBe(false);
  });
});
