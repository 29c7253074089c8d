import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { setRoots } from './layout.js';

/**
 * Where the agent tools' worktrees are (README.md, "Footprint"): every root of every enabled set,
 * as found for the pass; its worktrees are items, the rest of it counts as `worktrees`.
 */
export async function worktreesFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return (await setRoots(ctx)).roots.map(
    (root): FootprintPlace => ({
      path: root.root,
      category: 'worktrees',
      basis: { owner: root.owner, of: `the owner of ${root.root}` },
    }),
  );
}
