import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { put } from '../../helpers/fs-fixtures.js';

/**
 * VS Code's storage, and the shadow repositories of its agent extensions, built exactly as their
 * sources write them. No VS Code runs here, and Roo Code and the old Kilo Code extension run only
 * inside it, so these are fixtures from source: VS Code's `ItemTable(key, value)` state database
 * (microsoft/vscode src/vs/base/parts/storage/node/storage.ts), its folder layout
 * (`<userData>/User/globalStorage/<publisher.name>`), and each extension's `initShadowGit`.
 */

/** The environment git runs with in these fixtures: no identity of the machine's, no system config. */
function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...extra };
  // The extensions' commits take their identity from the repository's config, as they do for real.
  for (const key of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL'])
    delete env[key];
  return env;
}

export function git(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  return execFileSync('git', args, {
    cwd: options.cwd,
    env: gitEnv(options.env),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A VS Code product folder in a home: `<home>/.config/<product>`. */
export function userDataOf(home: string, product = 'Code'): string {
  return path.join(home, '.config', product);
}

function globalStorage(userData: string): string {
  return path.join(userData, 'User', 'globalStorage');
}

/** The extension's storage folder (its id lowercased), made. */
export function extensionStorage(userData: string, extensionId: string): string {
  const dir = path.join(globalStorage(userData), extensionId.toLowerCase());
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A state database with VS Code's schema, holding one row per extension key (the manifest's case)
 * whose value is the JSON of its global state. An existing database gets its rows replaced.
 */
export function writeStateDb(file: string, rows: Record<string, unknown>): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.exec('CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    const insert = db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)');
    for (const [key, value] of Object.entries(rows)) insert.run(key, JSON.stringify(value));
    // VS Code keeps other products' and extensions' rows beside; a few of its own.
    insert.run('workbench.panel.position', '"bottom"');
  } finally {
    db.close();
  }
  return file;
}

/** The default profile's state database of a product. */
export const stateDbOf = (userData: string): string => path.join(globalStorage(userData), 'state.vscdb');

/** A user's project folder with a few files, as a git repository of its own. */
export function makeWorkspace(dir: string, files: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  put(path.join(dir, 'README.md'), `# ${path.basename(dir)}\n`);
  put(path.join(dir, 'src', 'main.ts'), 'export const main = () => 1;\n');
  for (const [name, content] of Object.entries(files)) put(path.join(dir, name), content);
  return dir;
}

export interface ShadowRepoSpec {
  /** The workspace the repository tracks (`core.worktree`); it need not exist. */
  worktree: string;
  userName: string;
  userEmail: string;
  /** `git init --template ""` (Roo, Kilo) or a plain `git init` (Cline). */
  emptyTemplate: boolean;
  /** The subjects of the checkpoint commits after `initial commit`, in order. */
  checkpoints: string[];
  /** Branches made at the last commit (Cline 3.5's `task-<id>`, Roo's `roo-<id>`). */
  branches?: string[];
  /** The first commit's subject; `null` for a repository whose `git init` never got to a commit. */
  initialSubject?: string | null;
}

/**
 * A shadow repository as `initShadowGit` makes it: `git init` in `<folder>`, `core.worktree`, no
 * signing, the extension's identity, `info/exclude`, everything added, `initial commit`
 * (allow-empty), then one commit per checkpoint (allow-empty, as the extensions commit even when
 * nothing changed). The workspace, when it exists, is what gets committed.
 */
export function makeShadowRepo(folder: string, spec: ShadowRepoSpec): string {
  mkdirSync(folder, { recursive: true });
  git(spec.emptyTemplate ? ['init', '-q', '--template', ''] : ['init', '-q'], { cwd: folder });
  git(['config', 'commit.gpgSign', 'false'], { cwd: folder });
  git(['config', 'user.name', spec.userName], { cwd: folder });
  git(['config', 'user.email', spec.userEmail], { cwd: folder });
  // Last: git refuses to run in a repository whose worktree's parent folder does not exist.
  git(['config', 'core.worktree', spec.worktree], { cwd: folder });
  mkdirSync(path.join(folder, '.git', 'info'), { recursive: true });
  writeFileSync(path.join(folder, '.git', 'info', 'exclude'), ['.git/', 'node_modules/', 'dist/', '*.log'].join('\n'));
  const initial = spec.initialSubject === undefined ? 'initial commit' : spec.initialSubject;
  if (initial === null) return folder;
  const env = { GIT_DIR: path.join(folder, '.git'), GIT_WORK_TREE: spec.worktree };
  // A workspace that is gone by now existed while the extension committed: it is made for that time.
  const madeForNow = !existsSync(spec.worktree);
  if (madeForNow) mkdirSync(spec.worktree, { recursive: true });
  try {
    const commit = (subject: string) => {
      git(['add', '.', '--ignore-errors'], { cwd: folder, env });
      git(['commit', '-q', '--allow-empty', '--no-verify', '-m', subject], { cwd: folder, env });
    };
    commit(initial);
    for (const subject of spec.checkpoints) commit(subject);
    for (const branch of spec.branches ?? []) git(['branch', branch], { cwd: folder, env });
  } finally {
    if (madeForNow) rmSync(spec.worktree, { recursive: true, force: true });
  }
  return folder;
}

/** `extensions.json` of an extensions folder, naming installed extensions and their versions. */
export function writeInstalledExtensions(extensionsDir: string, installed: Record<string, string>): void {
  const entries = Object.entries(installed).map(([id, version]) => ({
    identifier: { id },
    version,
    location: { $mid: 1, path: path.join(extensionsDir, `${id}-${version}`), scheme: 'file' },
    relativeLocation: `${id}-${version}`,
    metadata: { installedTimestamp: 1790000000000, source: 'gallery' },
  }));
  put(path.join(extensionsDir, 'extensions.json'), JSON.stringify(entries));
  for (const [id, version] of Object.entries(installed))
    mkdirSync(path.join(extensionsDir, `${id}-${version}`), { recursive: true });
}
