import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { owlLocations, owlWorktrees } from './layout.js';

/**
 * Where Coding Owl's state goes (README.md, "Footprint"): the data folder, with owl.db and the job
 * worktrees' folder, and the state folder with its run logs.
 */
export async function owlFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return (await owlLocations(ctx)).flatMap((location): FootprintPlace[] => {
    const { data, state, basis } = location;
    const places: FootprintPlace[] = [
      { path: data, category: 'other', basis },
      { path: data, pattern: 'owl.db*', category: 'databases', basis },
      { path: owlWorktrees(location), category: 'worktrees', basis },
    ];
    if (state)
      places.push(
        { path: state, category: 'other', basis },
        { path: path.join(state, 'logs'), category: 'logs', basis },
      );
    return places;
  });
}
