import type { ProviderModule } from '../../provider-api/provider.js';
import { codexSection } from './config.js';
import { codexSandbox } from './demo.js';
import { CODEX_VARIABLES } from './homes.js';
import { codexGather } from './provider.js';
import { CODEX_REASONS } from './reasons.js';
import { CODEX_ANCHORS, CODEX_SETS } from './worktree-set.js';
import { codexFootprint } from './footprint.js';

/** Codex's marketplace staging clones and backups, plugin clones, and the app's worktrees (README.md). */
export const codex: ProviderModule = {
  name: 'codex',
  section: codexSection,
  reasons: CODEX_REASONS,
  sandbox: codexSandbox,
  anchors: CODEX_ANCHORS,
  worktreeSets: CODEX_SETS,
  processVariables: CODEX_VARIABLES,
  footprint: codexFootprint,
  ...codexGather,
};
