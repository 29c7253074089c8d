import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { foundCopilotHomes } from './homes.js';
import { logsFolder, sessionStateFolder } from './layout.js';

/**
 * Where Copilot CLI's state goes (README.md, "Footprint"): every Copilot home the pass finds, with
 * its sessions (conversation data), its process logs (the old ones are items), its session store
 * and the rest of the home.
 */
export async function copilotFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  return foundCopilotHomes(ctx)
    .filter((home) => home.unreachable === undefined)
    .flatMap(({ dir, basis }): FootprintPlace[] => [
      { path: dir, category: 'other', basis },
      { path: sessionStateFolder(dir), category: 'transcripts', basis },
      { path: logsFolder(dir), category: 'logs', basis },
      { path: dir, pattern: 'session-store.db*', category: 'databases', basis },
    ]);
}
