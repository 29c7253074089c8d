import type { BuiltInSet } from '../../provider-api/provider.js';

/**
 * The worktrees Kilo Code and opencode make, judged by the worktrees provider as sets of roots:
 * opencode's and Kilo's API-made `<data>/worktree/<project id>/<name>`, and Kilo's
 * `<repo>/.kilo/worktrees/<name>` (legacy `.kilocode/worktrees`) of the CLI and the Agent Manager.
 */
export const KILO_SETS: readonly BuiltInSet[] = [
  { name: 'opencode', tool: 'opencode', roots: ['{opencode-data}/worktree/*'], idleAfter: '3d' },
  {
    name: 'kilo',
    tool: 'Kilo Code',
    roots: ['{kilo-data}/worktree/*', '{kilo-projects}/.kilo/worktrees', '{kilo-projects}/.kilocode/worktrees'],
    idleAfter: '3d',
  },
];
