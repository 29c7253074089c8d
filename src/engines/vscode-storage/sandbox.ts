import path from 'node:path';
import { git } from '../../git/git.js';
import { appendFile, mkdir, writeFile } from '../../safety/fs/write.js';
import { openSqlite } from '../../util/sqlite.js';

/**
 * What the demo sandboxes of `cline` and `roo` share: a VS Code state database with
 * `ItemTable(key, value)`, and shadow repositories made the way the extensions' `initShadowGit`
 * makes them.
 */

/** Adds (or replaces) rows of a VS Code state database, making it with VS Code's schema if needed. */
export async function putStateRows(file: string, rows: Record<string, unknown>): Promise<void> {
  await mkdir(path.dirname(file));
  const db = openSqlite(file);
  try {
    db.exec('CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    const insert = db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)');
    for (const [key, value] of Object.entries(rows)) insert.run(key, JSON.stringify(value));
  } finally {
    db.close();
  }
}

export interface DemoRepo {
  worktree: string;
  userName: string;
  userEmail: string;
  emptyTemplate: boolean;
  subjects: string[];
}

/**
 * `git init`, the extension's config and exclude file (written as `git config` writes them), the
 * workspace added and `initial commit`, then one commit per subject (the extensions commit even
 * when nothing changed).
 */
export async function demoShadowRepo(folder: string, spec: DemoRepo): Promise<string> {
  await mkdir(folder);
  await git(spec.emptyTemplate ? ['init', '-q', '--template', '', folder] : ['init', '-q', folder]);
  const config = path.join(folder, '.git', 'config');
  await appendFile(
    config,
    `\tworktree = ${spec.worktree}\n[commit]\n\tgpgSign = false\n[user]\n\tname = ${spec.userName}\n\temail = ${spec.userEmail}\n`,
  );
  await mkdir(path.join(folder, '.git', 'info'));
  await writeFile(path.join(folder, '.git', 'info', 'exclude'), '.git/\nnode_modules/\n');
  const env = {
    GIT_DIR: path.join(folder, '.git'),
    GIT_WORK_TREE: spec.worktree,
    GIT_AUTHOR_NAME: spec.userName,
    GIT_AUTHOR_EMAIL: spec.userEmail,
    GIT_COMMITTER_NAME: spec.userName,
    GIT_COMMITTER_EMAIL: spec.userEmail,
  };
  // A workspace deleted since existed while the extension committed.
  await mkdir(spec.worktree);
  await git(['add', '.', '--ignore-errors'], { cwd: folder, env });
  for (const subject of ['initial commit', ...spec.subjects]) {
    await git(['commit', '-q', '--allow-empty', '--no-verify', '-m', subject], { cwd: folder, env });
  }
  return folder;
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file));
  await writeFile(file, JSON.stringify(value));
}
