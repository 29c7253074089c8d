import path from 'node:path';
import type { ProviderModule } from '../../provider-api/provider.js';
import { gooseSection } from './config.js';
import { gooseSandbox } from './demo.js';
import { gooseLocations, sessionsDir } from './layout.js';
import { gooseGather } from './provider.js';
import { GOOSE_REASONS } from './reasons.js';
import { gooseFootprint } from './footprint.js';

/** Goose's logs past its own 14-day retention, and its sessions reported (README.md). */
export const goose: ProviderModule = {
  name: 'goose',
  section: gooseSection,
  reasons: GOOSE_REASONS,
  sandbox: gooseSandbox,
  claimedFolders: (ctx) => {
    const { states, datas } = gooseLocations(ctx);
    return [
      ...states.map((state) => ({ owner: 'goose', folder: path.join(state.dir, 'logs'), whose: "Goose's logs" })),
      ...datas.map((data) => ({ owner: 'goose', folder: sessionsDir(data.dir), whose: "Goose's sessions" })),
    ];
  },
  footprint: gooseFootprint,
  ...gooseGather,
};
