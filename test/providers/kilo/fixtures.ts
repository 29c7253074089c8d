import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { put } from '../../helpers/fs-fixtures.js';

/**
 * Kilo's on-disk state built the way Kilo builds it: real repositories, real worktrees made with
 * `git worktree add`, snapshot repositories made with `GIT_DIR=<it> GIT_WORK_TREE=<worktree> git
 * init`, seeding leftovers and their pin in the owner repository, and a kilo.db with Kilo 7.7.9's
 * own tables.
 */

export const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

const GIT_ENV: NodeJS.ProcessEnv = {
  GIT_AUTHOR_NAME: 'Ana Example',
  GIT_AUTHOR_EMAIL: 'ana@example.test',
  GIT_COMMITTER_NAME: 'Ana Example',
  GIT_COMMITTER_EMAIL: 'ana@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export function git(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  return execFileSync('git', args, {
    cwd: options.cwd,
    env: { ...process.env, ...GIT_ENV, ...options.env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

let lfs: boolean | undefined;
/** git-lfs is optional at run time; fixtures add LFS objects where it is installed. */
export function hasGitLfs(): boolean {
  if (lfs === undefined) {
    try {
      execFileSync('git', ['lfs', 'version'], { stdio: 'ignore' });
      lfs = true;
    } catch {
      lfs = false;
    }
  }
  return lfs;
}

const LFS_FILTER = [
  '-c',
  'filter.lfs.clean=git-lfs clean -- %f',
  '-c',
  'filter.lfs.smudge=git-lfs smudge -- %f',
  '-c',
  'filter.lfs.process=git-lfs filter-process',
  '-c',
  'filter.lfs.required=true',
];

export interface KiloPaths {
  home: string;
  data: string;
  state: string;
}

/** `<home>/.local/share/<app>` and `<home>/.local/state/<app>`. */
export function kiloPaths(home: string, app: 'kilo' | 'opencode' = 'kilo'): KiloPaths {
  const paths = { home, data: path.join(home, '.local', 'share', app), state: path.join(home, '.local', 'state', app) };
  mkdirSync(paths.data, { recursive: true });
  return paths;
}

/** A repository with a main branch and two commits of real files. */
export function makeRepo(dir: string, files: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  git(['init', '-q', '-b', 'main', dir]);
  put(path.join(dir, 'README.md'), `# ${path.basename(dir)}\n`);
  put(path.join(dir, 'src', 'index.ts'), 'export const answer = 42;\n');
  git(['-C', dir, 'add', '-A']);
  git(['-C', dir, 'commit', '-q', '-m', 'first']);
  for (const [name, content] of Object.entries(files)) put(path.join(dir, name), content);
  put(path.join(dir, 'src', 'more.ts'), 'export const more = 1;\n');
  git(['-C', dir, 'add', '-A']);
  git(['-C', dir, 'commit', '-q', '-m', 'second']);
  return dir;
}

/** Kilo's project id for a repository without an origin remote: its root commit. */
export function projectIdOf(repo: string): string {
  return git(['-C', repo, 'rev-list', '--max-parents=0', 'HEAD']).trim();
}

/** `kilo worktree create <name>`: a worktree on branch `<name>` under `<R>/.kilo/worktrees/`. */
export function addKiloWorktree(repo: string, name: string, folder: '.kilo' | '.kilocode' = '.kilo'): string {
  const worktree = path.join(repo, folder, 'worktrees', name);
  git(['-C', repo, 'worktree', 'add', '-q', '-b', name, worktree]);
  put(path.join(repo, folder, '.gitignore'), 'node_modules\npackage.json\n.gitignore\nagent-manager.json');
  put(path.join(worktree, 'work.txt'), `work done in ${name}\n`);
  return worktree;
}

/** `kilo worktree remove <name>`: git worktree remove --force, then the branch. */
export function removeKiloWorktree(repo: string, worktree: string): void {
  git(['-C', repo, 'worktree', 'remove', '--force', worktree]);
  git(['-C', repo, 'branch', '-D', path.basename(worktree)]);
}

export interface SnapshotOptions {
  /** Leave the seeding leftovers: alternates to R's objects, seed-objects/, the pin in R. */
  seededFrom?: string;
  /** Add a file stored through Git LFS (where git-lfs is installed). */
  lfs?: boolean;
}

/**
 * A per-worktree checkpoint repository `<data>/snapshot/<project>/<sha1(worktree)>`, made the way
 * Kilo makes it, with snapshot pins (`refs/kilo/snapshots/<ms>/<tree>`) and a commit.
 */
export function makeSnapshot(data: string, projectId: string, worktree: string, options: SnapshotOptions = {}): string {
  const gitdir = path.join(data, 'snapshot', projectId, sha1(worktree));
  mkdirSync(gitdir, { recursive: true });
  const env = { GIT_DIR: gitdir, GIT_WORK_TREE: worktree };
  git(['init', '-q'], { env });
  git(['--git-dir', gitdir, 'config', 'core.autocrlf', 'false']);
  git(['--git-dir', gitdir, 'config', 'core.longpaths', 'true']);
  git(['--git-dir', gitdir, 'config', 'core.symlinks', 'true']);
  if (options.seededFrom) seed(gitdir, options.seededFrom);
  const useLfs = options.lfs === true && hasGitLfs();
  if (useLfs) {
    put(path.join(worktree, '.gitattributes'), '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    put(path.join(worktree, 'model.bin'), Buffer.alloc(20_000, 7));
  }
  put(path.join(worktree, 'scratch.txt'), `turn output for ${path.basename(worktree)}\n`);
  for (let turn = 0; turn < 2; turn += 1) {
    git([...(useLfs ? LFS_FILTER : []), 'add', '-A'], { env });
    const tree = git(['write-tree'], { env }).trim();
    git(['update-ref', `refs/kilo/snapshots/${Date.now() + turn}/${tree}`, tree], { env });
  }
  git([...(useLfs ? LFS_FILTER : []), 'commit', '-q', '-m', 'snapshot'], { env });
  return gitdir;
}

/** What Kilo's seeding leaves: borrowed objects, a staging pack, and the pin in the owner repo. */
function seed(gitdir: string, owner: string): void {
  const staging = path.join(gitdir, 'seed-objects');
  mkdirSync(path.join(staging, 'pack'), { recursive: true });
  put(path.join(gitdir, 'objects', 'info', 'alternates'), `${path.join(owner, '.git', 'objects')}\n${staging}\n`);
  const tree = git(['-C', owner, 'rev-parse', 'HEAD^{tree}']).trim();
  execFileSync(
    'git',
    ['--git-dir', path.join(owner, '.git'), 'pack-objects', '-q', path.join(staging, 'pack', 'seed')],
    {
      input: `${tree}\n`,
      env: { ...process.env, ...GIT_ENV },
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  git(['-C', owner, 'update-ref', pinOf(gitdir), tree]);
}

export const pinOf = (gitdir: string): string => `refs/kilo/materialize/${sha1(path.resolve(gitdir))}`;

export function refExists(repo: string, ref: string): boolean {
  try {
    git(['-C', repo, 'rev-parse', '--verify', '--quiet', ref]);
    return true;
  } catch {
    return false;
  }
}

/** `<R>/.kilo/agent-manager.json` in the Agent Manager's shape. */
export function writeAgentManager(
  repo: string,
  worktrees: Array<{ path: string; branch: string }>,
  folder = '.kilo',
): string {
  const file = path.join(repo, folder, 'agent-manager.json');
  const data = {
    worktrees: Object.fromEntries(
      worktrees.map((entry, index) => [
        `wt-${1_790_000_000_000 + index}-${index + 1}`,
        {
          branch: entry.branch,
          path: entry.path,
          parentBranch: 'main',
          createdAt: new Date(1_790_000_000_000).toISOString(),
        },
      ]),
    ),
    sessions: {},
  };
  put(file, JSON.stringify(data, null, 2));
  return file;
}

// Kilo 7.7.9's own tables (read from a kilo.db the real CLI made).
const KILO_SCHEMA = `
CREATE TABLE \`project\` (
  \`id\` text PRIMARY KEY, \`worktree\` text NOT NULL, \`vcs\` text, \`name\` text, \`icon_url\` text,
  \`icon_url_override\` text, \`icon_color\` text, \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL, \`time_initialized\` integer, \`sandboxes\` text NOT NULL, \`commands\` text
);
CREATE TABLE \`project_directory\` (
  \`project_id\` text NOT NULL, \`directory\` text NOT NULL, \`type\` text, \`strategy\` text,
  \`time_created\` integer NOT NULL,
  CONSTRAINT \`project_directory_pk\` PRIMARY KEY(\`project_id\`, \`directory\`),
  CONSTRAINT \`fk_project_directory_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`session\` (
  \`id\` text PRIMARY KEY, \`project_id\` text NOT NULL, \`workspace_id\` text, \`parent_id\` text,
  \`slug\` text NOT NULL, \`directory\` text NOT NULL, \`path\` text, \`title\` text NOT NULL,
  \`version\` text NOT NULL, \`share_url\` text, \`summary_additions\` integer, \`summary_deletions\` integer,
  \`summary_files\` integer, \`summary_diffs\` text, \`metadata\` text, \`cost\` real DEFAULT 0 NOT NULL,
  \`tokens_input\` integer DEFAULT 0 NOT NULL, \`tokens_output\` integer DEFAULT 0 NOT NULL,
  \`tokens_reasoning\` integer DEFAULT 0 NOT NULL, \`tokens_cache_read\` integer DEFAULT 0 NOT NULL,
  \`tokens_cache_write\` integer DEFAULT 0 NOT NULL, \`revert\` text, \`permission\` text, \`agent\` text,
  \`model\` text, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL,
  \`time_compacting\` integer, \`time_archived\` integer,
  CONSTRAINT \`fk_session_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE INDEX \`session_project_idx\` ON \`session\` (\`project_id\`);
`;

export interface KiloDbContent {
  projects: Array<{ id: string; worktree: string; sandboxes?: string[] }>;
  directories?: Array<{ projectId: string; directory: string; strategy?: string }>;
  sessions?: Array<{ projectId: string; directory: string; title?: string; id?: string }>;
}

/** A kilo.db in WAL mode with Kilo's project, project_directory and session tables. */
export function makeKiloDb(file: string, content: KiloDbContent): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(KILO_SCHEMA);
    const now = 1_790_000_000_000;
    const project = db.prepare(
      'INSERT INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const directory = db.prepare(
      'INSERT INTO project_directory (project_id, directory, type, strategy, time_created) VALUES (?, ?, ?, ?, ?)',
    );
    const session = db.prepare(
      'INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const row of content.projects) {
      project.run(row.id, row.worktree, 'git', null, now, now, JSON.stringify(row.sandboxes ?? []));
      directory.run(row.id, row.worktree, null, null, now);
    }
    for (const row of content.directories ?? [])
      directory.run(row.projectId, row.directory, null, row.strategy ?? 'git_worktree', now);
    (content.sessions ?? []).forEach((row, index) => {
      session.run(
        row.id ?? `ses_${String(index).padStart(26, '0')}`,
        row.projectId,
        `slug-${index}`,
        row.directory,
        row.title ?? `New session ${index}`,
        '7.7.9',
        now + index,
        now + index,
      );
    });
  } finally {
    db.close();
  }
  return file;
}

/** A directory lock in Kilo's shape, as a live (or long dead) Kilo process leaves it. */
export function writeKiloLock(lockDir: string, heartbeatAt: Date, pid = 4242): void {
  mkdirSync(lockDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(lockDir, 'heartbeat'), '');
  writeFileSync(
    path.join(lockDir, 'meta.json'),
    JSON.stringify({
      token: '3b241101-e2bb-4255-8caf-4136c566a962',
      pid,
      hostname: 'devbox-1',
      createdAt: heartbeatAt.toISOString(),
    }),
  );
}

export const lockDirOf = (state: string, gitdir: string): string =>
  path.join(state, 'locks', `${sha1(`snapshot:${gitdir}`)}.lock`);
