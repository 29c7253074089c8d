import path from 'node:path';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';
import { hasGitEntry, taskCheckpoints } from '../../engines/vscode-storage/task-checkpoints.js';

/** A checkpoint repository folder as Cline lays them out. */
export interface ClineRepoEntry {
  /** `checkpoints/<cwdHash>` (one per workspace, 3.5 and later) or `tasks/<id>/checkpoints` (3.0 to 3.4). */
  layout: 'workspace' | 'task';
  storage: string;
  /** The cwdHash, or the task id. */
  name: string;
  folder: string;
}

export interface ClineListing {
  repos: ClineRepoEntry[];
  /** `.<name>.cleanup-<uuid>` left by an interrupted deletion, with the folder that contains it. */
  quarantines: Array<{ path: string; parent: string }>;
  /** Every `tasks/<id>` folder. */
  taskFolders: Array<{ id: string; path: string }>;
}

const CWD_HASH = /^\d{1,13}$/;

/**
 * What lies in one of Cline's storage folders. Only names Cline makes are listed (a decimal hash
 * under `checkpoints/`, any task id under `tasks/`); a folder that holds no `.git` is not a
 * repository (Cline makes the folder before it runs `git init`).
 */
export async function listClineStorage(storage: string): Promise<ClineListing> {
  const listing: ClineListing = { repos: [], quarantines: [], taskFolders: [] };
  const checkpoints = path.join(storage, 'checkpoints');
  for (const entry of await readdirOrEmpty(checkpoints)) {
    const full = path.join(checkpoints, entry.name);
    if (quarantinedName(entry.name) !== null) {
      listing.quarantines.push({ path: full, parent: checkpoints });
      continue;
    }
    if (!CWD_HASH.test(entry.name) || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    if (await hasGitEntry(full)) listing.repos.push({ layout: 'workspace', storage, name: entry.name, folder: full });
  }
  const tasks = path.join(storage, 'tasks');
  for (const entry of await readdirOrEmpty(tasks)) {
    if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
    const dir = path.join(tasks, entry.name);
    listing.taskFolders.push({ id: entry.name, path: dir });
    const found = await taskCheckpoints(dir);
    for (const quarantine of found.quarantines) listing.quarantines.push({ path: quarantine, parent: dir });
    if (found.repo) listing.repos.push({ layout: 'task', storage, name: entry.name, folder: found.repo });
  }
  return listing;
}
