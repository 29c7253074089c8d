import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { hashWorkingDir } from '../../dist/providers/cline/layout.js';
import { ensureDir, put, writeSized } from './files.mjs';
import { git } from './git.mjs';

const CLINE = 'saoudrizwan.claude-dev';
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Cline Checkpoint',
  GIT_AUTHOR_EMAIL: 'checkpoint@cline.bot',
  GIT_COMMITTER_NAME: 'Cline Checkpoint',
  GIT_COMMITTER_EMAIL: 'checkpoint@cline.bot',
};

/**
 * One Cline checkpoint repository as Cline's initShadowGit makes it (`git init`, core.worktree,
 * Cline's identity, `initial commit` of a workspace of `files` files as loose objects), built once
 * and copied for every repository of the fleet.
 */
export function buildClineTemplate(dir, files) {
  const repo = path.join(dir, 'cline-repo');
  const worktree = path.join(dir, 'cline-worktree');
  for (let k = 0; k < files; k += 1) {
    const folder = path.join(worktree, 'src', `module-${Math.floor(k / 40)}`);
    if (k % 40 === 0) ensureDir(folder);
    writeSized(path.join(folder, `file-${k}.ts`), 9_000_000 + k);
  }
  ensureDir(repo);
  git(['init', '-q', repo]);
  for (const [key, value] of [
    ['core.worktree', worktree],
    ['commit.gpgSign', 'false'],
    ['user.name', 'Cline Checkpoint'],
    ['user.email', 'checkpoint@cline.bot'],
  ])
    git(['-C', repo, 'config', key, value]);
  const env = { ...IDENTITY, GIT_DIR: path.join(repo, '.git'), GIT_WORK_TREE: worktree };
  git(['add', '-A'], { env });
  git(['commit', '-q', '-m', 'initial commit'], { env });
  const initial = git(['rev-parse', 'HEAD'], { env }).trim();
  const tree = git(['rev-parse', 'HEAD^{tree}'], { env }).trim();
  const branch = git(['symbolic-ref', 'HEAD'], { env }).trim();
  return { repo, worktree, initial, tree, branch };
}

/**
 * Cline in VS Code for one user: `count` workspace repositories `checkpoints/<hash>`, each with one
 * checkpoint commit of its own task. Odd tasks are in `state/taskHistory.json`: kept. Even ones
 * were deleted in Cline, which left their repositories: dead.
 */
export function buildClineUser(home, count, template) {
  const userData = path.join(home, '.config', 'Code');
  const storage = path.join(userData, 'User', 'globalStorage', CLINE);
  const db = new Database(path.join(ensured(path.dirname(storage)), 'state.vscdb'));
  db.exec('CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run(CLINE, JSON.stringify({ clineVersion: '3.89.2' }));
  db.close();
  const templateConfig = readFileSync(path.join(template.repo, '.git', 'config'), 'utf8');
  const history = [];
  const dead = [];
  const live = [];
  for (let i = 0; i < count; i += 1) {
    const worktree = path.join(home, 'work', `project-${i}`);
    const hash = hashWorkingDir(worktree);
    const folder = path.join(storage, 'checkpoints', hash);
    const gitdir = path.join(folder, '.git');
    cpSync(path.join(template.repo, '.git'), gitdir, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
    });
    writeFileSync(path.join(gitdir, 'config'), templateConfig.replace(template.worktree, worktree));
    const task = String(1790000000000 + i);
    // The worktree is gone by now (it existed while Cline committed): git is given the template's.
    const commit = git(
      [
        '--git-dir',
        gitdir,
        '--work-tree',
        template.worktree,
        'commit-tree',
        template.tree,
        '-p',
        template.initial,
        '-m',
        `checkpoint-${hash}-${task}`,
      ],
      {
        env: IDENTITY,
      },
    ).trim();
    writeFileSync(path.join(gitdir, template.branch), `${commit}\n`);
    if (i % 2 === 0) dead.push(folder);
    else {
      history.push({
        id: task,
        ts: Number(task),
        task: 'bench',
        tokensIn: 1,
        tokensOut: 1,
        totalCost: 0,
        cwdOnTaskInitialization: worktree,
      });
      live.push(folder);
    }
  }
  put(path.join(storage, 'state', 'taskHistory.json'), JSON.stringify(history));
  return { storage, dead, live };
}

function ensured(dir) {
  ensureDir(dir);
  return dir;
}
