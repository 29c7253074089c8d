import type { ProviderModule } from '../../provider-api/provider.js';
import { claudeCodeSection } from './config.js';
import { claudeCodeSandbox } from './demo.js';
import { CLAUDE_ANCHORS } from './projects-anchor.js';
import { claudeCodeGather } from './provider.js';
import { PROCESS_VARIABLES } from './layout.js';
import { CLAUDE_CODE_REASONS } from './reasons.js';
import { CLAUDE_SETS } from './worktree-sets.js';
import { claudeCodeFootprint } from './footprint.js';

/** Claude Code's background task output under `claude-<uid>`, and its worktrees as a set (README.md). */
export const claudeCode: ProviderModule = {
  name: 'claude-code',
  section: claudeCodeSection,
  reasons: CLAUDE_CODE_REASONS,
  sandbox: claudeCodeSandbox,
  anchors: CLAUDE_ANCHORS,
  worktreeSets: CLAUDE_SETS,
  processVariables: PROCESS_VARIABLES,
  footprint: claudeCodeFootprint,
  ...claudeCodeGather,
};
