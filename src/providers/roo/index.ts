import type { ProviderModule } from '../../provider-api/provider.js';
import { rooSection } from './config.js';
import { rooSandbox } from './demo.js';
import { rooGather } from './provider.js';
import { ROO_REASONS } from './reasons.js';
import { rooFootprint } from './footprint.js';

/** Roo Code's and the old Kilo Code extension's checkpoint repositories (README.md). */
export const roo: ProviderModule = {
  name: 'roo',
  section: rooSection,
  reasons: ROO_REASONS,
  sandbox: rooSandbox,
  footprint: rooFootprint,
  ...rooGather,
};
