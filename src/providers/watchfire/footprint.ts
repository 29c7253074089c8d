import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { LOGS_DIR, watchfireLocations } from './layout.js';

/**
 * Where Watchfire's state goes (README.md, "Footprint"): each root, whose session homes are items,
 * and its session logs.
 */
export async function watchfireFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return watchfireLocations(ctx).flatMap(({ root, basis }): FootprintPlace[] => [
    { path: root, category: 'other', basis },
    { path: path.join(root, LOGS_DIR), category: 'logs', basis },
  ]);
}
