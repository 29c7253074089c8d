import type { BuiltInSet } from '../../provider-api/provider.js';

/**
 * The worktree roots of well-known agent tools that have no provider of their own, on unless the
 * config turns one off by name; a provider of a tool gives its tool's sets itself (`worktreeSets`).
 * Each layout was read from the tool's own source or documentation; this provider's README.md says
 * where, and why each idleAfter differs from the 3d default where it does. A root that does not
 * exist costs a failed lstat and says nothing.
 */
export const OWN_SETS: readonly BuiltInSet[] = [
  // `~/.claude-squad/worktrees/<branch>_<hex>`; the default branch prefix `<user>/` adds a level.
  {
    name: 'claude-squad',
    tool: 'claude-squad',
    roots: ['~/.claude-squad/worktrees', '~/.claude-squad/worktrees/*'],
    idleAfter: '7d',
  },
  { name: 'conductor', tool: 'Conductor', roots: ['~/conductor/workspaces/*'], idleAfter: '14d' },
  { name: 'container-use', tool: 'container-use', roots: ['~/.config/container-use/worktrees'], idleAfter: '7d' },
  { name: 'cursor', tool: 'Cursor', roots: ['~/.cursor/worktrees/*'], idleAfter: '3d' },
  { name: 'vibe-kanban', tool: 'vibe-kanban', roots: ['/var/tmp/vibe-kanban/worktrees/*'], idleAfter: '3d' },
];
