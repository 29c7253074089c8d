import type { BuiltInSet } from '../../provider-api/provider.js';
import { claudeLock } from './worktree-lock.js';

/**
 * The worktrees Claude Code makes, judged by the worktrees provider as a set of roots:
 * `claude --worktree`, subagents and the desktop app make `<repo>/.claude/worktrees/<name>`
 * (`{claude-projects}`: the repositories of its `.claude.json`); older parallel sessions
 * `~/.claude-worktrees/<repo>/<name>`. It keeps its place among the built-in sets, after Codex's.
 * A worktree Claude Code locked for a process that has ended is judged with the lock in place, and
 * unlocked right before its removal (worktree-lock.ts).
 */
export const CLAUDE_SETS: readonly BuiltInSet[] = [
  {
    name: 'claude-code',
    tool: 'Claude Code',
    roots: ['{claude-projects}/.claude/worktrees', '~/.claude-worktrees/*'],
    idleAfter: '3d',
    before: 'claude-squad',
    staleLock: claudeLock,
  },
];
