import { lutimesSync } from 'node:fs';
import path from 'node:path';
import { backdateTree, ensureDir, put, writeSized } from './files.mjs';
import { git } from './git.mjs';

/**
 * vibe-kanban's layout (src/providers/worktrees/README.md): `<fleet>/var/tmp/vibe-kanban/worktrees/<ws>/<repo>`,
 * each a real `git worktree add` of an owner repository of `files` files. Even-numbered trees are
 * clean and their commit is on main (dead: removed with `git worktree remove`); odd ones hold an
 * untracked file (`unfinished`). All of them are idle, so every one is asked of git.
 */
export function buildWorktrees(fleet, homes, count, files, old) {
  const setRoot = path.join(fleet, 'var', 'tmp', 'vibe-kanban', 'worktrees');
  const owners = homes.map((home, index) => ownerRepo(path.join(home, 'code', `web-${index}`), files));
  const dead = [];
  const live = [];
  for (let k = 0; k < count; k += 1) {
    const owner = owners[k % owners.length];
    const worktree = path.join(setRoot, `ws-${String(k).padStart(4, '0')}`, 'web');
    ensureDir(path.dirname(worktree));
    git(['-C', owner, 'worktree', 'add', '-q', '-b', `vk/${k}`, worktree]);
    if (k % 2 === 1) put(path.join(worktree, 'NOTES.md'), 'half-written plan\n');
    const admin = path.join(
      owner,
      '.git',
      'worktrees',
      path.basename(git(['-C', worktree, 'rev-parse', '--git-dir']).trim()),
    );
    (k % 2 === 0 ? dead : live).push({ worktree, admin });
  }
  // Idle for days. The index is refreshed after the files are aged (git records their new times),
  // so status compares stat data as it would on a tree nobody touched, instead of rehashing.
  backdateTree(setRoot, old);
  for (const { worktree, admin } of [...dead, ...live]) refreshWorktree(worktree, admin, old);
  for (const owner of owners) lutimesSync(path.join(owner, '.git', 'worktrees'), old, old);
  return { setRoot, dead, live, admins: owners.map((owner) => path.join(owner, '.git', 'worktrees')) };
}

/**
 * Records the files' current stat data in the worktree's index (after they were aged, or copied
 * back), then ages the admin entry a minute after the files, so the index is not racily clean.
 */
export function refreshWorktree(worktree, admin, old) {
  git(['-C', worktree, 'update-index', '-q', '--refresh']);
  backdateTree(admin, new Date(old.getTime() + 60_000));
}

function ownerRepo(dir, files) {
  ensureDir(dir);
  put(path.join(dir, '.gitignore'), '*.log\nnode_modules/\n');
  for (let k = 0; k < files; k += 1) {
    const folder = path.join(dir, 'src', `feature-${Math.floor(k / 40)}`);
    if (k % 40 === 0) ensureDir(folder);
    writeSized(path.join(folder, `part-${k}.ts`), 9_000_000 + k);
  }
  git(['init', '-q', dir]);
  git(['-C', dir, 'add', '-A']);
  git(['-C', dir, 'commit', '-q', '-m', 'Initial commit']);
  return dir;
}
