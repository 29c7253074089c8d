import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { gooseLocations, sessionsDir } from './layout.js';

/**
 * Where Goose's state goes (README.md, "Footprint"): its state folder, whose `logs/` are its
 * logs (the date folders past its own retention are items), and its data folder, whose
 * `sessions/` are conversation data.
 */
export async function gooseFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  const { states, datas } = gooseLocations(ctx);
  return [
    ...states.flatMap(({ dir, basis }): FootprintPlace[] => [
      { path: dir, category: 'other', basis },
      { path: path.join(dir, 'logs'), category: 'logs', basis },
    ]),
    ...datas.flatMap(({ dir, basis }): FootprintPlace[] => [
      { path: dir, category: 'other', basis },
      { path: sessionsDir(dir), category: 'transcripts', basis },
    ]),
  ];
}
