import type { RootStatus } from '../../model/types.js';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { basisOf } from '../../safety/owners/location-basis.js';

/**
 * Where the agent tools' worktrees are (README.md, "Footprint"): every root of every enabled set
 * that this pass listed (its gather's roots, found once: some are named by tools' state); its
 * worktrees are items, the rest of it counts as `worktrees`.
 */
export async function worktreesFootprint(
  ctx: GatherContext,
  gathered: readonly RootStatus[],
): Promise<FootprintPlace[]> {
  return gathered
    .filter((root) => root.ok && root.warning === undefined)
    .map((root): FootprintPlace => ({ path: root.root, category: 'worktrees', basis: basisOf(root.root, ctx.homes) }));
}
