import type { ProviderModule } from '../../provider-api/provider.js';
import { kiloSection } from './config.js';
import { kiloSandbox } from './demo.js';
import { kiloLocations, snapshotRoot } from './layout.js';
import { KILO_DELETE } from './leftovers.js';
import { KILO_VARIABLES } from './lock-places.js';
import { OPENCODE_DB } from './opencode-db-variable.js';
import { KILO_ANCHORS } from './projects-anchor.js';
import { kiloGather } from './provider.js';
import { KILO_REASONS } from './reasons.js';
import { KILO_SETS } from './worktree-sets.js';
import { kiloFootprint } from './footprint.js';

const APPS: Record<string, string> = { opencode: "opencode's", kilo: "Kilo Code's" };

/** Kilo Code's and opencode's checkpoint repositories, and their worktrees as sets (README.md). */
export const kilo: ProviderModule = {
  name: 'kilo',
  section: kiloSection,
  reasons: KILO_REASONS,
  sandbox: kiloSandbox,
  claimedFolders: (ctx) =>
    kiloLocations(ctx).map((location) => ({
      owner: 'kilo',
      folder: snapshotRoot(location.dataDir),
      whose: `${APPS[location.app ?? ''] ?? 'the'} checkpoint repositories`,
    })),
  anchors: KILO_ANCHORS,
  worktreeSets: KILO_SETS,
  claimedNames: [KILO_DELETE],
  // Kilo Code hashes its git folders' paths as its $HOME or $XDG_DATA_HOME spells them (rule 25);
  // a live opencode may keep its sessions in the database its OPENCODE_DB names (rule 27).
  processVariables: [...KILO_VARIABLES, OPENCODE_DB],
  footprint: kiloFootprint,
  ...kiloGather,
};
