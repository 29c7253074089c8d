import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { PassResult } from '../../../src/pass/pass.js';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import {
  extensionStorage,
  makeShadowRepo,
  stateDbOf,
  userDataOf,
  writeStateDb,
} from '../../engines/vscode-storage/fixtures.js';

/**
 * Cline's storage, built as Cline 3 writes it (cline/cline v3.89.2 and the 3.52.0 core the npm CLI
 * 1.0.10 ships, read in full): `state/taskHistory.json` (a JSON list of HistoryItem),
 * `tasks/<id>/` (api_conversation_history.json, ui_messages.json, task_metadata.json,
 * settings.json), and `checkpoints/<hashWorkingDir(workspace)>/.git` made by `initShadowGit`
 * with commits `checkpoint-<hash>-<taskId>`. The integration test checks this against the real CLI.
 */

export const CLINE_ID = 'saoudrizwan.claude-dev';

export interface ClineScene {
  root: string;
  home: string;
  userData: string;
  /** Cline's storage folder in VS Code: `<userData>/User/globalStorage/saoudrizwan.claude-dev`. */
  gs: string;
  stateDb: string;
  /** Where the user's projects are. */
  projects: string;
  /** The pass's config and report (outside the inventoried tree). */
  work: string;
}

/** A home with VS Code and Cline, its state database holding Cline's row (history moved to the file). */
export function clineScene(): ClineScene {
  const root = tempDir('aj-cline-');
  const home = path.join(root, 'home');
  const userData = userDataOf(home);
  const gs = extensionStorage(userData, CLINE_ID);
  const stateDb = writeStateDb(stateDbOf(userData), {
    [CLINE_ID]: { clineVersion: '3.89.2', welcomeViewCompleted: true },
  });
  const projects = path.join(root, 'projects');
  mkdirSync(projects, { recursive: true });
  return { root, home, userData, gs, stateDb, projects, work: tempDir('aj-cline-run-') };
}

/** A HistoryItem as Cline 3.89 writes it. */
export function historyItem(id: string, cwd: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    ulid: `01M8RK${id.slice(-10)}0000000000`.slice(0, 26),
    ts: Number(id) || 1790000000000,
    task: 'write hello',
    tokensIn: 10,
    tokensOut: 4,
    cacheWrites: 0,
    cacheReads: 0,
    totalCost: 0,
    size: 14690,
    shadowGitConfigWorkTree: cwd,
    cwdOnTaskInitialization: cwd,
    isFavorited: false,
    modelId: 'fake-model',
    ...extra,
  };
}

export function writeTaskHistory(storage: string, items: Array<Record<string, unknown>>): string {
  return put(path.join(storage, 'state', 'taskHistory.json'), JSON.stringify(items));
}

/** A task's folder: its conversation files (unless `conversation` is false), and its settings. */
export function taskFolder(storage: string, id: string, options: { conversation?: boolean } = {}): string {
  const dir = path.join(storage, 'tasks', id);
  mkdirSync(dir, { recursive: true });
  if (options.conversation !== false) {
    put(
      path.join(dir, 'api_conversation_history.json'),
      JSON.stringify([{ role: 'user', content: [{ type: 'text', text: '<task>write hello</task>' }] }]),
    );
    put(
      path.join(dir, 'ui_messages.json'),
      JSON.stringify([{ ts: Number(id) || 1, type: 'say', say: 'task', text: 'write hello' }]),
    );
    put(
      path.join(dir, 'task_metadata.json'),
      JSON.stringify({ files_in_context: [], model_usage: [], environment_history: [] }),
    );
  }
  // Cline 3.52 deletes only the four conversation files and then rmdir()s: settings.json stays.
  put(path.join(dir, 'settings.json'), JSON.stringify({ yoloModeToggled: true }));
  return dir;
}

/** `checkpoints/<hash>`: the workspace repository of Cline 3.6.9 and later, one commit per checkpoint of each task. */
export function workspaceRepo(
  storage: string,
  worktree: string,
  taskIds: string[],
  options: { extra?: string[]; branches?: string[]; name?: string } = {},
): string {
  const hash = hashWorkingDir(worktree);
  return makeShadowRepo(path.join(storage, 'checkpoints', options.name ?? hash), {
    worktree,
    userName: 'Cline Checkpoint',
    userEmail: 'checkpoint@cline.bot',
    emptyTemplate: false,
    checkpoints: [...taskIds.map((id) => `checkpoint-${hash}-${id}`), ...(options.extra ?? [])],
    ...(options.branches ? { branches: options.branches } : {}),
  });
}

/** `checkpoints/<hash>` of Cline 3.5 to 3.6.8: one branch `task-<id>` per task, commits `checkpoint`. */
export function branchRepo(storage: string, worktree: string, taskIds: string[]): string {
  return makeShadowRepo(path.join(storage, 'checkpoints', hashWorkingDir(worktree)), {
    worktree,
    userName: 'Cline Checkpoint',
    userEmail: 'checkpoint@cline.bot',
    emptyTemplate: false,
    checkpoints: ['checkpoint'],
    branches: taskIds.map((id) => `task-${id}`),
  });
}

/** `tasks/<id>/checkpoints`: the per-task repository of Cline 3.0 to 3.4. */
export function legacyTaskRepo(storage: string, id: string, worktree: string): string {
  return makeShadowRepo(path.join(storage, 'tasks', id, 'checkpoints'), {
    worktree,
    userName: 'Cline Checkpoint',
    userEmail: 'noreply@example.com',
    emptyTemplate: false,
    checkpoints: ['checkpoint', 'checkpoint'],
  });
}

/** Ages everything the scene wrote, so that the history is settled and minAge passes. */
export function settle(s: ClineScene): void {
  backdate(s.root, daysAgo(2));
}

/** The environment of a pass whose user does not own the scene's home: no variable of its own applies. */
const FOREIGN_ENV: NodeJS.ProcessEnv = { HOME: '/nonexistent-home', XDG_CONFIG_HOME: '', CLINE_DIR: '' };

export function runCline(
  s: { home: string; work: string },
  options: { reportOnly?: boolean; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv; minAge?: string } = {},
): Promise<PassResult> {
  return pass({
    dir: s.work,
    config: { homes: [s.home], minAge: options.minAge ?? '0s', ...options.config },
    only: ['cline'],
    reportOnly: options.reportOnly ?? false,
    env: { ...FOREIGN_ENV, ...options.env },
    // The processes these tests start are their own: another file's git elsewhere must not count.
    processScope: 'own',
  });
}

export function writeJson(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** A Cline 4 session database with the `sessions` table npm cline 3.0.65 creates (the columns the rule reads and the required ones). */
export function writeSessionsDb(file: string, ids: string[]): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(
      'CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, source TEXT NOT NULL, pid INTEGER NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL, cwd TEXT NOT NULL, workspace_root TEXT NOT NULL, updated_at TEXT NOT NULL)',
    );
    const insert = db.prepare(
      "INSERT INTO sessions (session_id, source, pid, started_at, status, cwd, workspace_root, updated_at) VALUES (?, 'cli', 1, '2026-08-01T00:00:00Z', 'completed', '/x', '/x', '2026-08-01T00:00:00Z')",
    );
    for (const id of ids) insert.run(id);
  } finally {
    db.close();
  }
  return file;
}
