import type { ProviderModule } from '../../provider-api/provider.js';
import { copilotSection } from './config.js';
import { copilotSandbox } from './demo.js';
import { COPILOT_VARIABLES } from './homes.js';
import { copilotGather } from './provider.js';
import { COPILOT_REASONS } from './reasons.js';
import { COPILOT_ANCHORS, COPILOT_SETS } from './worktree-set.js';
import { copilotFootprint } from './footprint.js';

/** GitHub Copilot CLI's logs past its own retention, its sessions reported, its pull-request worktrees (README.md). */
export const copilot: ProviderModule = {
  name: 'copilot',
  section: copilotSection,
  reasons: COPILOT_REASONS,
  sandbox: copilotSandbox,
  anchors: COPILOT_ANCHORS,
  worktreeSets: COPILOT_SETS,
  processVariables: COPILOT_VARIABLES,
  footprint: copilotFootprint,
  ...copilotGather,
};
