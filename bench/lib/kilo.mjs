import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, put, writeSized } from './files.mjs';
import { git } from './git.mjs';

const sha1 = (text) => createHash('sha1').update(text).digest('hex');

/**
 * One checkpoint repository made the way Kilo makes it (`GIT_DIR=<it> GIT_WORK_TREE=<worktree>
 * git init`, two snapshot pins and a commit of a worktree of `files` files, as loose objects),
 * built once and copied for every repository of the fleet.
 */
export function buildSnapshotTemplate(dir, files) {
  const gitdir = path.join(dir, 'gitdir');
  const worktree = path.join(dir, 'worktree');
  ensureDir(gitdir);
  for (let k = 0; k < files; k += 1) {
    const folder = path.join(worktree, 'src', `module-${Math.floor(k / 40)}`);
    if (k % 40 === 0) ensureDir(folder);
    writeSized(path.join(folder, `file-${k}.ts`), 7_000_000 + k);
  }
  const env = { GIT_DIR: gitdir, GIT_WORK_TREE: worktree };
  git(['init', '-q'], { env });
  git(['config', 'core.autocrlf', 'false'], { env });
  git(['add', '-A'], { env });
  const tree = git(['write-tree'], { env }).trim();
  git(['update-ref', `refs/kilo/snapshots/1790000000000/${tree}`, tree], { env });
  git(['update-ref', `refs/kilo/snapshots/1790000000001/${tree}`, tree], { env });
  git(['commit', '-q', '-m', 'snapshot'], { env });
  return { gitdir, worktree };
}

/**
 * Kilo's data for one user: an owner repository R, and `count` checkpoint repositories for
 * worktrees `<R>/.kilo/worktrees/task-<i>`. Even-numbered worktrees were removed (`kilo worktree
 * remove`): their repositories are dead. Odd ones still exist: kept.
 */
export function buildKiloUser(home, user, count, template) {
  const owner = path.join(home, 'code', `app-${user}`);
  put(path.join(owner, 'README.md'), `# app ${user}\n`);
  put(path.join(owner, 'src', 'index.ts'), 'export const answer = 42;\n');
  put(path.join(owner, '.kilo', '.gitignore'), 'worktrees\nagent-manager.json\n');
  git(['init', '-q', owner]);
  git(['-C', owner, 'add', '-A']);
  git(['-C', owner, 'commit', '-q', '-m', 'first']);
  const projectId = git(['-C', owner, 'rev-list', '--max-parents=0', 'HEAD']).trim();
  const data = path.join(home, '.local', 'share', 'kilo');
  ensureDir(path.join(home, '.local', 'state', 'kilo', 'locks'));
  const snapshots = path.join(data, 'snapshot');
  const templateConfig = readFileSync(path.join(template.gitdir, 'config'), 'utf8');
  const dead = [];
  const live = [];
  for (let i = 0; i < count; i += 1) {
    const worktree = path.join(owner, '.kilo', 'worktrees', `task-${i}`);
    const gitdir = path.join(snapshots, projectId, sha1(worktree));
    cpSync(template.gitdir, gitdir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    writeFileSync(path.join(gitdir, 'config'), templateConfig.replace(template.worktree, worktree));
    if (i % 2 === 0) dead.push(gitdir);
    else {
      put(path.join(worktree, 'notes.md'), 'still being worked on\n');
      live.push(gitdir);
    }
  }
  return { snapshots, dead, live, owner };
}
