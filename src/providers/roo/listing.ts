import path from 'node:path';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { hasGitEntry, taskCheckpoints } from '../../engines/vscode-storage/task-checkpoints.js';
import { WORKSPACE_REPO } from './checkpoints.js';

/** A per-task repository `tasks/<id>/checkpoints`, or a per-workspace one `checkpoints/<8 hex>`. */
export interface RooRepoEntry {
  layout: 'task' | 'workspace';
  storage: string;
  /** The task id, or the workspace hash. */
  name: string;
  folder: string;
}

export interface RooListing {
  repos: RooRepoEntry[];
  quarantines: Array<{ path: string; parent: string }>;
}

/**
 * The repositories of one storage folder: always under the extension's global storage, whatever
 * the custom storage path (the checkpoint service is given the global storage folder).
 */
export async function listRooStorage(storage: string): Promise<RooListing> {
  const listing: RooListing = { repos: [], quarantines: [] };
  const tasks = path.join(storage, 'tasks');
  for (const entry of await readdirOrEmpty(tasks)) {
    if (entry.name.startsWith('_') || entry.name.startsWith('.') || !entry.isDirectory()) continue;
    const dir = path.join(tasks, entry.name);
    const found = await taskCheckpoints(dir);
    for (const quarantine of found.quarantines) listing.quarantines.push({ path: quarantine, parent: dir });
    if (found.repo) listing.repos.push({ layout: 'task', storage, name: entry.name, folder: found.repo });
  }
  const checkpoints = path.join(storage, 'checkpoints');
  for (const entry of await readdirOrEmpty(checkpoints)) {
    if (!WORKSPACE_REPO.test(entry.name) || !entry.isDirectory()) continue;
    const full = path.join(checkpoints, entry.name);
    if (await hasGitEntry(full)) listing.repos.push({ layout: 'workspace', storage, name: entry.name, folder: full });
  }
  return listing;
}

/** Every `tasks/<id>` folder of a base that holds anything, for the orphan report. */
export async function taskFolders(base: string): Promise<Array<{ id: string; path: string; entries: string[] }>> {
  const tasks = path.join(base, 'tasks');
  const found: Array<{ id: string; path: string; entries: string[] }> = [];
  for (const entry of await readdirOrEmpty(tasks)) {
    if (entry.name.startsWith('_') || entry.name.startsWith('.') || !entry.isDirectory()) continue;
    const dir = path.join(tasks, entry.name);
    const entries = (await readdirOrEmpty(dir).catch(() => [])).map((inner) => inner.name);
    if (entries.length > 0) found.push({ id: entry.name, path: dir, entries });
  }
  return found;
}
