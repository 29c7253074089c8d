import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { rooLocations } from './layout.js';

/**
 * Where Roo Code's (and the old Kilo Code extension's) state goes (README.md, "Footprint"): each
 * storage folder, with its tasks (conversations; their checkpoint repositories are items) and its
 * per-workspace checkpoint repositories.
 */
export async function rooFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return (await rooLocations(ctx)).flatMap(({ storages, basis }) =>
    storages.flatMap((storage): FootprintPlace[] => [
      { path: storage, category: 'other', basis },
      { path: path.join(storage, 'tasks'), category: 'transcripts', basis },
      { path: path.join(storage, 'checkpoints'), category: 'checkpoints', basis },
    ]),
  );
}
