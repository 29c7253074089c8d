import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { kiloLocations, snapshotRoot } from './layout.js';

/**
 * Where Kilo Code's and opencode's state goes (README.md, "Footprint"): the data folder, with its
 * checkpoint repositories, session storage, logs, databases, tool outputs and worktrees; the state
 * folder; and a database `$KILO_DB` or `$OPENCODE_DB` names outside the data folder.
 */
export async function kiloFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return kiloLocations(ctx).flatMap((location): FootprintPlace[] => {
    const { dataDir, stateDir, extraDatabase, basis } = location;
    const places: FootprintPlace[] = [
      { path: dataDir, category: 'other', basis },
      { path: snapshotRoot(dataDir), category: 'checkpoints', basis },
      { path: path.join(dataDir, 'storage'), category: 'transcripts', basis },
      { path: path.join(dataDir, 'log'), category: 'logs', basis },
      { path: dataDir, pattern: '*.db*', category: 'databases', basis },
      { path: path.join(dataDir, 'tool-output'), category: 'tool-output', basis },
      { path: path.join(dataDir, 'worktree'), category: 'worktrees', basis },
    ];
    if (stateDir) places.push({ path: stateDir, category: 'other', basis });
    if (extraDatabase)
      for (const file of [extraDatabase, `${extraDatabase}-wal`, `${extraDatabase}-shm`])
        places.push({ path: file, category: 'databases', basis });
    return places;
  });
}
