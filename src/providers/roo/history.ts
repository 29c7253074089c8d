import path from 'node:path';
import * as z from 'zod';
import { SourceOfTruthError, errorMessage } from '../../model/errors.js';
import { isFolderOrLinkToOne } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import { WriteClock, readJsonSource, subfolders } from '../../engines/vscode-storage/files.js';
import { readSetting } from '../../engines/vscode-storage/settings.js';
import type { HistoryRead } from '../../engines/vscode-storage/settle.js';
import { globalState } from '../../engines/vscode-storage/history-source.js';
import { readAs } from '../../engines/vscode-storage/read-as.js';
import { readExtensionState } from '../../engines/vscode-storage/state-db.js';
import type { RooLocation } from './layout.js';

/** Everything the extension's records say exists in one product: the union of every source. */
export interface RooHistory extends HistoryRead {
  sources: string[];
  /** Task id → the first source that names it (a history item, a parent or child link, a write in flight). */
  tasks: Map<string, string>;
  /** Every base whose `tasks/` was read: the storage folders and each custom storage path. */
  bases: string[];
  /** A custom storage path that is configured but cannot be read: the tasks there are unknown. */
  customProblem?: string;
}

// A HistoryItem names other tasks too: its root, parent and children, and delegation links.
const LINKS = ['rootTaskId', 'parentTaskId', 'delegatedToId', 'awaitingChildId', 'completedByChildId'] as const;

/** `history_item.json.lock` (proper-lockfile) and safeWriteJson's `.history_item.json.new_…`/`.bak_…` files. */
const WRITE_IN_FLIGHT = /^(history_item\.json\.lock|\.history_item\.json\.(new|bak)_.*)$/;

/** A task another names: any value that is not a task id names none. */
const link = z.string().min(1).optional().catch(undefined);

/** A HistoryItem: its id, and the tasks it names (root, parent, children, delegation links). */
const historyItem = z.looseObject(
  {
    id: z.string({ error: 'a history item has no id' }).min(1, 'a history item has no id'),
    rootTaskId: link,
    parentTaskId: link,
    delegatedToId: link,
    awaitingChildId: link,
    completedByChildId: link,
    childIds: z.array(z.string().optional().catch(undefined)).optional().catch(undefined),
  },
  { error: 'a history item is not a JSON object' },
);

/** `tasks/_index.json`: its list of entries, each a history item. */
const taskIndex = z.looseObject(
  { entries: z.array(z.unknown(), { error: 'not a task history index (no list of entries)' }) },
  { error: 'not a task history index (no list of entries)' },
);

/**
 * Reads every history source of a product for one extension: the `taskHistory` of the extension's
 * row in every `state.vscdb`, and in every base (the storage folders and each configured custom
 * storage path) `tasks/_index.json` and each `tasks/<id>/history_item.json`. Throws a
 * SourceOfTruthError naming the first source it cannot read.
 */
export async function readRooHistory(location: RooLocation): Promise<RooHistory> {
  const history: RooHistory = { digest: '', newest: null, sources: [], tasks: new Map(), bases: [] };
  const written = new WriteClock();
  for (const file of location.stateDatabases) {
    await written.note([file, `${file}-journal`, `${file}-wal`]);
    const row = readExtensionState(file, location.extension.id);
    history.sources.push(file);
    for (const state of row.states) {
      const items = readAs(globalState, state, file).taskHistory;
      for (const item of items ?? []) addItem(history, item, `${file} (taskHistory)`);
    }
  }
  const custom = await customStoragePaths(location, written);
  if (custom.problem) history.customProblem = custom.problem;
  for (const base of [...location.storages, ...custom.paths]) await readBase(history, base, written);
  history.newest = written.newest;
  history.digest = JSON.stringify([[...history.tasks.keys()].sort(), history.bases, history.customProblem ?? '']);
  return history;
}

/**
 * The custom storage paths the user's settings name (every profile, and a remote host's machine
 * settings). One that is set but is not an absolute, existing, readable folder holding tasks/ (an
 * unmounted volume looks the same) is a problem: the extension keeps the history of its tasks there.
 */
async function customStoragePaths(
  location: RooLocation,
  written: WriteClock,
): Promise<{ paths: string[]; problem?: string }> {
  const paths: string[] = [];
  const problems: string[] = [];
  const key = `${location.extension.settingsSection}.customStoragePath`;
  for (const file of location.settingsFiles) {
    await written.note([file]);
    const setting = await readSetting(file, location.extension.settingsSection, 'customStoragePath');
    if (setting.state === 'absent' || setting.value === '') continue;
    const problem = await unusableBase(setting.value, location.basis);
    if (problem) problems.push(`${key} in ${file} is ${problem}`);
    else if (!paths.includes(path.resolve(setting.value as string))) paths.push(path.resolve(setting.value as string));
  }
  return problems.length > 0 ? { paths, problem: problems.join('; ') } : { paths };
}

/**
 * Why a configured storage path cannot be read, or null when it can. It is the settings' owner's
 * choice, so it is read only as that owner's (`basis`, rule 20): never through a link to, or as a
 * folder of, another user's.
 */
export async function unusableBase(value: unknown, basis: LocationBasis): Promise<string | null> {
  if (typeof value !== 'string') return `not a path (${JSON.stringify(value)})`;
  if (!path.isAbsolute(value)) return `${value}, not an absolute path`;
  const located = locate(value, basis);
  if (located.state === 'refused') return `${value}, which is not read: ${located.detail}`;
  if (!(await isFolderOrLinkToOne(value))) return `${value}, which is not an existing folder (an unmounted volume?)`;
  let entries: Awaited<ReturnType<typeof readdirOrEmpty>>;
  try {
    entries = await readdirOrEmpty(value);
  } catch (err) {
    return `${value}, which cannot be read: ${errorMessage(err)}`;
  }
  // The mount point of a volume that is not mounted is an empty folder; a custom storage folder the
  // extension has used always holds tasks/. One without it proves nothing of the tasks kept there.
  if (!entries.some((entry) => entry.name === 'tasks'))
    return `${value}, which holds no tasks/ folder (an unmounted volume's mount point looks like this)`;
  return null;
}

/** Reads one base's `tasks/_index.json` and every `tasks/<id>/history_item.json` into the history. */
async function readBase(history: RooHistory, base: string, written: WriteClock): Promise<void> {
  history.bases.push(base);
  const tasks = path.join(base, 'tasks');
  const index = path.join(tasks, '_index.json');
  await written.note([tasks, index]);
  const source = await readJsonSource(index);
  if (source.state === 'read') {
    const { entries } = readAs(taskIndex, source.value, index);
    history.sources.push(index);
    for (const entry of entries) addItem(history, entry, index);
  }
  for (const folder of await subfolders(tasks)) {
    if (folder.name.startsWith('_') || folder.name.startsWith('.')) continue;
    await readTaskFolder(history, path.join(tasks, folder.name), folder.name, written);
  }
}

async function readTaskFolder(history: RooHistory, dir: string, id: string, written: WriteClock): Promise<void> {
  let entries: Awaited<ReturnType<typeof readdirOrEmpty>>;
  try {
    entries = await readdirOrEmpty(dir);
  } catch (err) {
    throw new SourceOfTruthError(`${dir} cannot be listed: ${errorMessage(err)}`);
  }
  const inFlight = entries.find((entry) => WRITE_IN_FLIGHT.test(entry.name));
  if (inFlight) name(history, id, `a write of its history_item.json in flight (${path.join(dir, inFlight.name)})`);
  if (!entries.some((entry) => entry.name === 'history_item.json')) return;
  const file = path.join(dir, 'history_item.json');
  await written.note([file]);
  const source = await readJsonSource(file);
  if (source.state !== 'read') return;
  const label = path.join(path.dirname(dir), '*', 'history_item.json');
  if (!history.sources.includes(label)) history.sources.push(label);
  name(history, id, file);
  addItem(history, source.value, file);
}

function addItem(history: RooHistory, value: unknown, source: string): void {
  const item = readAs(historyItem, value, source);
  name(history, item.id, source);
  for (const key of LINKS) {
    const linked = item[key];
    if (linked !== undefined) name(history, linked, `${source} (${key} of ${item.id})`);
  }
  for (const child of item.childIds ?? [])
    if (child !== undefined) name(history, child, `${source} (a child of ${item.id})`);
}

function name(history: RooHistory, id: string, source: string): void {
  if (!history.tasks.has(id)) history.tasks.set(id, source);
}

/**
 * The tasks a workspace's own custom storage path (set in its `.vscode/settings.json`, so no
 * user-level read can see it) names, read the same way as every base.
 */
export async function readBaseTasks(base: string): Promise<Map<string, string>> {
  const probe: RooHistory = { digest: '', newest: null, sources: [], tasks: new Map(), bases: [] };
  await readBase(probe, base, new WriteClock());
  return probe.tasks;
}
