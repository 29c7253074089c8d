import path from 'node:path';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';

/** What a task folder `tasks/<id>` holds of its checkpoints: the repository, and interrupted deletions of it. */
export interface TaskCheckpoints {
  /** `tasks/<id>/checkpoints` when it holds a `.git` (the folder is made before `git init` runs). */
  repo: string | null;
  /** `.checkpoints.cleanup-<uuid>` folders an interrupted deletion left. */
  quarantines: string[];
}

export async function taskCheckpoints(taskDir: string): Promise<TaskCheckpoints> {
  const found: TaskCheckpoints = { repo: null, quarantines: [] };
  for (const inner of await readdirOrEmpty(taskDir)) {
    const full = path.join(taskDir, inner.name);
    if (quarantinedName(inner.name) === 'checkpoints') found.quarantines.push(full);
    else if (
      inner.name === 'checkpoints' &&
      (inner.isDirectory() || inner.isSymbolicLink()) &&
      (await hasGitEntry(full))
    )
      found.repo = full;
  }
  return found;
}

export async function hasGitEntry(folder: string): Promise<boolean> {
  return (await readdirOrEmpty(folder).catch(() => [])).some((entry) => entry.name === '.git');
}
