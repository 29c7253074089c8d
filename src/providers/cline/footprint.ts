import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { clineLocations } from './layout.js';

/**
 * Where Cline's state goes (README.md, "Footprint"): each storage folder (an editor's, or the
 * standalone host's data folder) with its tasks, checkpoint repositories and, for Cline 4 and its
 * hub, session and event databases.
 */
export async function clineFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return (await clineLocations(ctx)).flatMap((location) => {
    const basis = location.editor?.basis ?? { owner: location.homeOwner, of: `the owner of ${location.label}` };
    return location.storages.flatMap((storage): FootprintPlace[] => [
      { path: storage, category: 'other', basis },
      { path: storage, pattern: '*.db*', category: 'databases', basis },
      { path: path.join(storage, 'tasks'), category: 'transcripts', basis },
      { path: path.join(storage, 'checkpoints'), category: 'checkpoints', basis },
      { path: path.join(storage, 'sessions'), category: 'transcripts', basis },
      { path: path.join(storage, 'sessions'), pattern: '*.db*', category: 'databases', basis },
      { path: path.join(storage, 'db'), category: 'databases', basis },
    ]);
  });
}
