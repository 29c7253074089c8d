import type { ProviderModule } from '../../provider-api/provider.js';
import { clineSection } from './config.js';
import { clineSandbox } from './demo.js';
import { clineGather } from './provider.js';
import { CLINE_REASONS } from './reasons.js';
import { clineFootprint } from './footprint.js';

/** Cline's checkpoint repositories in VS Code's extension storage (README.md). */
export const cline: ProviderModule = {
  name: 'cline',
  section: clineSection,
  reasons: CLINE_REASONS,
  sandbox: clineSandbox,
  footprint: clineFootprint,
  ...clineGather,
};
