import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import type { ReportItem } from '../../../src/model/types.js';
import { backdate, put } from '../../helpers/fs-fixtures.js';
import { makeRepo, sh } from '../../helpers/git-fixtures.js';
import { lockedNow } from '../../helpers/locks.js';
import { pass, type PassSetup } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * A Codex home laid out as Codex 0.171.0 lays it out (test/providers/codex/real-cli.slow.test.ts
 * checks that layout against the real CLI): `.tmp/marketplaces` with its locks, live copies,
 * staging folders and backups; `worktrees/<4-hex>/<repo>` with codex-thread.json in each admin
 * folder; `state_5.sqlite` with Codex's own `threads` table; `thread-writer-locks/`.
 */
export interface CodexWorld {
  root: string;
  home: string;
  codexHome: string;
  marketplaces: string;
  staging: string;
  /** The user's repository the app's worktrees are made from. */
  repo: string;
  /** Where a pass writes its config and report (outside the inventoried tree). */
  work: string;
}

export function codexWorld(): CodexWorld {
  const root = tempDir('aj-codex-');
  return codexWorldAt(root, path.join(root, 'home'));
}

/** The same world in a given home; its repository beside it in `<root>/work/`. */
export function codexWorldAt(root: string, home: string): CodexWorld {
  const codexHome = path.join(home, '.codex');
  const marketplaces = path.join(codexHome, '.tmp', 'marketplaces');
  const staging = path.join(marketplaces, '.staging');
  mkdirSync(staging, { recursive: true });
  for (const lock of ['.staging.lock', '.staging-cleanup.lock']) writeFileSync(path.join(marketplaces, lock), '');
  put(path.join(codexHome, 'config.toml'), 'model = "gpt-5"\n');
  const repo = makeRepo(path.join(root, 'work', path.basename(home), 'app'));
  return { root, home, codexHome, marketplaces, staging, repo, work: tempDir('aj-codex-run-') };
}

const SOURCE = (name: string): string => `https://github.com/acme/${name}.git`;

/** `[marketplaces.<name>]` for each, as `codex plugin marketplace add` writes it. */
export function configureMarketplaces(w: CodexWorld, names: readonly string[], extra = ''): void {
  const tables = names.map((name) => `[marketplaces.${name}]\nsource_type = "git"\nsource = "${SOURCE(name)}"\n`);
  writeFileSync(path.join(w.codexHome, 'config.toml'), ['model = "gpt-5"\n', ...tables, extra].join('\n'));
}

/** A marketplace checkout: its manifest, a plugin, a git folder, and Codex's install record. */
export function marketplaceCopy(folder: string, name: string, options: { record?: boolean } = {}): string {
  put(path.join(folder, '.agents', 'plugins', 'marketplace.json'), `${JSON.stringify({ name, plugins: [] })}\n`);
  put(path.join(folder, 'plugins', 'lint', 'README.md'), '# lint\n');
  sh(folder, 'init', '-q');
  sh(folder, 'add', '.');
  sh(folder, 'commit', '-q', '-m', 'marketplace');
  if (options.record ?? true) {
    const revision = sh(folder, 'rev-parse', 'HEAD').trim();
    const record = { source_type: 'git', source: SOURCE(name), ref_name: null, sparse_paths: [], revision };
    put(path.join(folder, '.codex-marketplace-install.json'), JSON.stringify(record));
  }
  return folder;
}

/** A current staging folder a killed upgrade left: `.lock` (unless told not to) and a checkout. */
export function stagingClone(w: CodexWorld, name: string, options: { lock?: boolean } = {}): string {
  const folder = path.join(w.staging, name);
  if (options.lock ?? true) put(path.join(folder, '.lock'), '');
  marketplaceCopy(path.join(folder, 'checkout'), 'acme');
  return folder;
}

/** `marketplace-backup-XXXXXX/root`: the copy an upgrade moved out of the live path. */
export function backup(w: CodexWorld, id: string, name: string): string {
  const folder = path.join(w.marketplaces, `marketplace-backup-${id}`);
  marketplaceCopy(path.join(folder, 'root'), name);
  return folder;
}

/** Codex 0.171.0's `threads` table, as `state_5.sqlite` has it (the columns this provider reads and the rest). */
const THREADS_TABLE = `CREATE TABLE threads (
  id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  source TEXT NOT NULL, model_provider TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL,
  sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL, tokens_used INTEGER NOT NULL DEFAULT 0,
  has_user_event INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER,
  git_sha TEXT, git_branch TEXT, git_origin_url TEXT, cli_version TEXT NOT NULL DEFAULT '',
  first_user_message TEXT NOT NULL DEFAULT '', created_at_ms INTEGER, updated_at_ms INTEGER
)`;

export interface ThreadSpec {
  id: string;
  cwd: string;
  archived?: boolean;
  /** Seconds since the epoch, as Codex writes them. */
  updatedAt?: number;
  archivedAt?: number;
}

/** `state_5.sqlite` in WAL mode with these thread rows. */
export function threadDatabase(w: CodexWorld, threads: readonly ThreadSpec[]): string {
  const file = path.join(w.codexHome, 'state_5.sqlite');
  mkdirSync(w.codexHome, { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(THREADS_TABLE);
    const insert = db.prepare(
      `INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title,
        sandbox_policy, approval_mode, archived, archived_at, updated_at_ms)
       VALUES (?, ?, ?, ?, 'exec', 'openai', ?, 'a task', '{}', 'never', ?, ?, ?)`,
    );
    for (const thread of threads) {
      const updated = thread.updatedAt ?? Math.floor(Date.now() / 1000) - 30 * 86_400;
      insert.run(
        thread.id,
        path.join(w.codexHome, 'sessions', `rollout-2026-01-01T00-00-00-${thread.id}.jsonl`),
        updated,
        updated,
        thread.cwd,
        thread.archived ? 1 : 0,
        thread.archived ? (thread.archivedAt ?? updated) : null,
        updated * 1000,
      );
    }
  } finally {
    db.close();
  }
  return file;
}

let nextThread = 1;
/** A thread id of Codex's shape (a UUID). */
export function threadId(): string {
  const n = (nextThread++).toString(16).padStart(12, '0');
  return `019d7e2a-41c3-7b9e-8d21-${n}`;
}

/** `codex exec --worktree`'s worktree `<codex>/worktrees/<id>/app`, detached, with codex-thread.json. */
export function appWorktree(w: CodexWorld, id: string, thread: string | null): string {
  return appWorktreeIn(w, path.join(w.codexHome, 'worktrees'), id, thread);
}

/** The same in another worktree root (config.toml's `[desktop] git-worktree-root`). */
export function appWorktreeIn(w: CodexWorld, root: string, id: string, thread: string | null): string {
  const worktree = path.join(root, id, 'app');
  mkdirSync(path.dirname(worktree), { recursive: true });
  sh(w.repo, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
  if (thread !== null) {
    const admin = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    writeFileSync(path.join(admin, 'codex-thread.json'), JSON.stringify({ version: 1, ownerThreadId: thread }), {
      mode: 0o600,
    });
  }
  return worktree;
}

/**
 * A live Codex session as the pass sees it: a real process carrying Codex's variables (argv[0]
 * `codex`), run as `user`, holding `lock` (a thread's writer lock, as util-linux flock) if given.
 * Ready once it has exec'd (its environment is its own) and the kernel shows the lock.
 */
export async function codexSession(options: {
  env: Record<string, string>;
  lock?: string;
  user?: { uid: number; gid: number };
}): Promise<ChildProcess> {
  const [command, args] = options.lock
    ? // flock execs the holder itself, whose argv[0] bash sets.
      ['flock', ['--exclusive', '--no-fork', options.lock, 'bash', '-c', 'exec -a codex sleep 600']]
    : ['sleep', ['600']];
  const child = spawn(command as string, args as string[], {
    argv0: 'codex',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: 'ignore',
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
  });
  sessions.push(child);
  const environ = () => {
    try {
      return readFileSync(`/proc/${child.pid}/environ`, 'utf8');
    } catch {
      return '';
    }
  };
  const wanted = Object.entries(options.env).map(([name, value]) => `${name}=${value}`);
  const cmdline = () => {
    try {
      return readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  // The sleep itself, not flock or bash on the way to it.
  await waitFor(
    () => cmdline() === ['codex', '600', ''].join('\0') && wanted.every((each) => environ().split('\0').includes(each)),
  );
  if (options.lock) await waitFor(() => lockedNow(options.lock as string));
  return child;
}

const sessions: ChildProcess[] = [];

afterEach(() => {
  for (const child of sessions.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A thread's writer lock file, as a session that exited uncleanly leaves it. */
export function writerLock(w: CodexWorld, thread: string): string {
  mkdirSync(path.join(w.codexHome, 'thread-writer-locks'), { recursive: true });
  put(path.join(w.codexHome, 'thread-writer-locks', '.coordination.lock'), '');
  return put(path.join(w.codexHome, 'thread-writer-locks', `${thread}.lock`), '');
}

/** Everything in the world, and the repository's worktree admin entries, written `days` ago. */
export function age(w: CodexWorld, when: Date): void {
  backdate(w.codexHome, when);
  backdate(path.join(w.repo, '.git', 'worktrees'), when);
}

/** A pass over the world's home, the codex provider alone unless told otherwise. */
export function runCodex(
  w: CodexWorld,
  options: Partial<Omit<PassSetup, 'dir'>> & { config?: Record<string, unknown> } = {},
): Promise<PassResult> {
  return pass({
    dir: w.work,
    only: ['codex'],
    ...options,
    config: { homes: [w.home], minAge: '1h', ...options.config },
    env: { HOME: '/nonexistent-home', CODEX_HOME: '', CODEX_SQLITE_HOME: '', ...options.env },
  });
}

/** `verdict reason` of the item at a path. */
export function verdictOf(result: PassResult, folder: string): string {
  const item = result.report.items.find((each: ReportItem) => each.path === folder);
  if (!item)
    throw new Error(`no item for ${folder}; the report has: ${result.report.items.map((i) => i.path).join(', ')}`);
  return `${item.verdict} ${item.reason}`;
}
