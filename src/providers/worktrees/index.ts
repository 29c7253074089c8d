import type { ProviderModule } from '../../provider-api/provider.js';
import { OWN_SETS } from './builtin-sets.js';
import { worktreeSetSettings, worktreesSection } from './config.js';
import { configureWorktrees } from './configure.js';
import { worktreesSandbox } from './demo.js';
import { worktreesGather } from './provider.js';
import { WORKTREES_REASONS } from './reasons.js';
import { worktreesFootprint } from './footprint.js';

/** Other agent tools' git worktrees, in the built-in and configured sets of roots (README.md). */
export const worktrees: ProviderModule = {
  name: 'worktrees',
  section: worktreesSection,
  reasons: WORKTREES_REASONS,
  sandbox: worktreesSandbox,
  configure: configureWorktrees,
  worktreeSets: OWN_SETS,
  worktreeSetSettings,
  footprint: worktreesFootprint,
  ...worktreesGather,
};
