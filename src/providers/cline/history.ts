import path from 'node:path';
import * as z from 'zod';
import { SourceOfTruthError } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { WriteClock, readJsonSource, subfolders } from '../../engines/vscode-storage/files.js';
import type { HistoryRead } from '../../engines/vscode-storage/settle.js';
import { globalState } from '../../engines/vscode-storage/history-source.js';
import { readAs } from '../../engines/vscode-storage/read-as.js';
import { readExtensionState } from '../../engines/vscode-storage/state-db.js';
import { readFolderLocks, readSessionIds } from './databases.js';
import { CLINE_EXTENSION, type ClineLocation } from './layout.js';
import { normalizeFolder } from './folders.js';

/**
 * Everything Cline's records say exists at one location: the union of every history source. A task
 * counts as existing when any source names it.
 */
export interface ClineHistory extends HistoryRead {
  /** Every source read, for the details. */
  sources: string[];
  /** Task id → the source that names it first: history items, Cline 4 sessions, running tasks' locks. */
  tasks: Map<string, string>;
  /** The workspace folders of the history items (`cwdOnTaskInitialization`, `shadowGitConfigWorkTree`) → a task id. */
  worktrees: Map<string, string>;
  /** `tasks/<id>` folders holding a conversation, by id: Cline can rebuild its history from them. */
  conversations: Map<string, string>;
  /** Cline 4 session databases found: a Cline 4 uses this place. */
  sessionDatabases: string[];
  /** `checkpoints/<hash>` names that a folder lock of the standalone host holds. */
  lockedCheckpoints: Map<string, string>;
}

/** A task folder whose conversation Cline would rebuild a history item from (`reconstructTaskHistory`). */
const CONVERSATION_FILES = ['ui_messages.json', 'api_conversation_history.json'];

// `~/.cline/data/checkpoints/<hash>` and `~/.cline/data/tasks/<id>`, with a literal `~`, whatever the real folder.
const CHECKPOINT_LOCK = /^~\/\.cline\/data\/checkpoints\/([^/]+)$/;
const TASK_LOCK = /^~\/\.cline\/data\/tasks\/([^/]+)$/;

/** A folder a history item names; any other value names none. */
const folder = z.string().min(1).optional().catch(undefined);

/**
 * A history item: its id (text, or a number as some versions wrote it, JSON's 1e999 included) and
 * the workspace folders it ran in; Cline's other keys are left alone.
 */
const historyItem = z.looseObject(
  {
    id: z.union([z.string(), z.number(), z.literal([Infinity, -Infinity])], { error: 'a history item has no id' }),
    cwdOnTaskInitialization: folder,
    shadowGitConfigWorkTree: folder,
  },
  { error: 'a history item is not a JSON object' },
);
const historyItems = z.array(historyItem);

/** `taskHistory.json`: a list of history items. */
const taskHistoryFile = z.array(z.unknown(), { error: 'not a JSON list of history items' });

/** Reads every history source of a location; throws a SourceOfTruthError naming the first it cannot read. */
export async function readClineHistory(location: ClineLocation): Promise<ClineHistory> {
  const history: ClineHistory = {
    digest: '',
    newest: null,
    sources: [],
    tasks: new Map(),
    worktrees: new Map(),
    conversations: new Map(),
    sessionDatabases: [],
    lockedCheckpoints: new Map(),
  };
  const written = new WriteClock();

  for (const storage of location.storages) {
    const file = path.join(storage, 'state', 'taskHistory.json');
    await written.note([file, path.join(storage, 'tasks')]);
    const source = await readJsonSource(file);
    if (source.state === 'read') addItems(history, readAs(taskHistoryFile, source.value, file), file);
    await addConversations(history, storage);
  }

  for (const file of location.stateDatabases) {
    await written.note([file, `${file}-journal`, `${file}-wal`]);
    const row = readExtensionState(file, CLINE_EXTENSION);
    history.sources.push(file);
    for (const state of row.states) addGlobalState(history, state, file);
  }

  if (location.kind === 'standalone') {
    const data = location.storages[0] as string;
    const file = path.join(data, 'globalState.json');
    await written.note([file]);
    const source = await readJsonSource(file);
    if (source.state === 'read') {
      history.sources.push(file);
      addGlobalState(history, source.value, file);
    }
    await addLocks(history, path.join(data, 'locks.db'), written);
  }

  for (const data of location.sessionDataDirs) await addSessions(history, data, written);

  history.newest = written.newest;
  history.digest = digestOf(history);
  return history;
}

function addGlobalState(history: ClineHistory, state: unknown, file: string): void {
  const items = readAs(globalState, state, file).taskHistory;
  if (items !== undefined && items !== null) addItems(history, items, `${file} (taskHistory)`);
}

function addItems(history: ClineHistory, items: unknown[], source: string): void {
  if (!history.sources.includes(source)) history.sources.push(source);
  for (const item of readAs(historyItems, items, source)) {
    const taskId = String(item.id);
    name(history, taskId, source);
    for (const worktree of [item.cwdOnTaskInitialization, item.shadowGitConfigWorkTree])
      if (worktree !== undefined) history.worktrees.set(normalizeFolder(worktree), taskId);
  }
}

async function addConversations(history: ClineHistory, storage: string): Promise<void> {
  const tasks = path.join(storage, 'tasks');
  for (const folder of await subfolders(tasks)) {
    if (folder.name.startsWith('.')) continue;
    const dir = path.join(tasks, folder.name);
    for (const name of CONVERSATION_FILES) {
      const stats = await lstatOrNull(path.join(dir, name)).catch((err) => {
        throw new SourceOfTruthError(`${dir} cannot be read: ${(err as Error).message}`);
      });
      if (!stats) continue;
      history.conversations.set(folder.name, dir);
      break;
    }
  }
}

async function addSessions(history: ClineHistory, data: string, written: WriteClock): Promise<void> {
  for (const file of [path.join(data, 'db', 'sessions.db'), path.join(data, 'sessions', 'sessions.db')]) {
    if (!(await lstatOrNull(file).catch(() => null))) continue;
    await written.note([file, `${file}-wal`]);
    history.sessionDatabases.push(file);
    history.sources.push(file);
    for (const id of readSessionIds(file)) name(history, id, `a Cline 4 session in ${file}`);
  }
  // Each session also has a folder of its own, named by its id.
  for (const entry of await readdirOrEmpty(path.join(data, 'sessions')).catch(() => [])) {
    if (entry.isDirectory()) name(history, entry.name, `a Cline 4 session folder in ${path.join(data, 'sessions')}`);
  }
}

async function addLocks(history: ClineHistory, file: string, written: WriteClock): Promise<void> {
  if (!(await lstatOrNull(file).catch(() => null))) return;
  await written.note([file, `${file}-journal`, `${file}-wal`]);
  history.sources.push(file);
  for (const lock of readFolderLocks(file)) {
    const checkpoint = CHECKPOINT_LOCK.exec(lock.target);
    if (checkpoint) history.lockedCheckpoints.set(checkpoint[1] as string, lock.heldBy);
    const task = TASK_LOCK.exec(lock.target);
    if (task) name(history, task[1] as string, `a running task's lock in ${file}`);
  }
}

/** Counts a task as existing, keeping the first source that named it. */
function name(history: ClineHistory, id: string, source: string): void {
  if (!history.tasks.has(id)) history.tasks.set(id, source);
}

function digestOf(history: ClineHistory): string {
  return JSON.stringify([
    [...history.tasks.keys()].sort(),
    [...history.conversations.keys()].sort(),
    [...history.worktrees.keys()].sort(),
    [...history.lockedCheckpoints.keys()].sort(),
    history.sessionDatabases,
  ]);
}
