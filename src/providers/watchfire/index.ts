import type { ProviderModule } from '../../provider-api/provider.js';
import { watchfireSection } from './config.js';
import { watchfireSandbox } from './demo.js';
import { watchfireRoots } from './layout.js';
import { watchfireGather } from './provider.js';
import { WATCHFIRE_REASONS } from './reasons.js';
import { watchfireFootprint } from './footprint.js';

/** Watchfire's per-session agent homes (README.md). */
export const watchfire: ProviderModule = {
  name: 'watchfire',
  section: watchfireSection,
  reasons: WATCHFIRE_REASONS,
  sandbox: watchfireSandbox,
  claimedFolders: (ctx) =>
    watchfireRoots(ctx).map((folder) => ({ owner: 'watchfire', folder, whose: "Watchfire's agent homes" })),
  footprint: watchfireFootprint,
  ...watchfireGather,
};
