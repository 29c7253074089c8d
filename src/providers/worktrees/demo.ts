import path from 'node:path';
import type { SandboxBuilder, SandboxContext, SandboxExtras } from '../../demo/index.js';
import { lutimes } from '../../safety/fs.js';
import { backdateTree, sandboxCommit, sandboxGit, sandboxRepo, writeSandboxFile } from '../../worktree/sandbox.js';

const DAY = 86_400_000;

/**
 * Agent worktrees with no database to ask: a vibe-kanban workspace under /var/tmp (inside the
 * sandbox) and Claude Code's `.claude/worktrees` in a repository of the home. Merged and pushed
 * trees go; dirty, untracked-only and unpushed detached trees are unfinished; a locked subagent
 * tree and one still being worked on are kept.
 */
export const worktreesSandbox: SandboxBuilder = {
  name: 'worktrees',
  async build(ctx: SandboxContext): Promise<SandboxExtras> {
    const repo = await sandboxRepo(path.join(ctx.home, 'code', 'api'));
    const workspaces = path.join(ctx.root, 'var', 'tmp', 'vibe-kanban', 'worktrees');
    const ws = path.join(workspaces, 'ws-3f2a');
    const claude = path.join(repo, '.claude', 'worktrees');
    const add = async (folder: string, branch: string) => {
      await sandboxGit(repo, 'worktree', 'add', '-q', '-b', branch, folder);
      return folder;
    };

    const merged = await add(path.join(ws, 'merged'), 'vk/3f2a-merged');
    await sandboxCommit(merged, 'src/health.ts', 'export const ok = true;\n', 'Add a health check');
    await sandboxGit(repo, 'merge', '-q', '--ff-only', 'vk/3f2a-merged');
    await writeSandboxFile(path.join(merged, 'server.log'), 'ignored log output\n');
    const pushed = await add(path.join(ws, 'pushed'), 'vk/3f2a-pushed');
    const pushedHead = await sandboxCommit(pushed, 'src/limits.ts', 'export const limit = 10;\n', 'Rate limits');
    await sandboxGit(repo, 'update-ref', 'refs/remotes/origin/vk/3f2a-pushed', pushedHead);
    const dirty = await add(path.join(ws, 'dirty'), 'vk/3f2a-dirty');
    await writeSandboxFile(path.join(dirty, 'README.md'), '# api\n\nHalf-written docs\n');
    const untracked = await add(path.join(ws, 'untracked'), 'vk/3f2a-untracked');
    await writeSandboxFile(path.join(untracked, 'src', 'new-endpoint.ts'), 'export {};\n');
    const detached = await add(path.join(ws, 'detached'), 'vk/3f2a-detached');
    await sandboxGit(detached, 'checkout', '-q', '--detach');
    await sandboxGit(repo, 'branch', '-q', '-D', 'vk/3f2a-detached');
    await sandboxCommit(detached, 'src/fix.ts', 'export const fix = 1;\n', 'A fix that was never pushed');

    await add(path.join(claude, 'agent-a1b2'), 'worktree-agent-a1b2');
    const running = await add(path.join(claude, 'agent-c3d4'), 'worktree-agent-c3d4');
    await sandboxGit(repo, 'worktree', 'lock', '--reason', 'claude agent agent-c3d4 (pid 31337)', running);
    const fresh = await add(path.join(claude, 'agent-e5f6'), 'worktree-agent-e5f6');

    await backdateTree(repo, ctx.old);
    await backdateTree(workspaces, ctx.old);
    // Worked on yesterday evening: older than minAge, younger than idleAfter.
    const yesterday = new Date(Date.now() - 0.6 * DAY);
    await lutimes(
      await writeSandboxFile(path.join(fresh, 'TODO.md'), '- finish the migration\n'),
      yesterday,
      yesterday,
    );
    await lutimes(fresh, yesterday, yesterday);

    return {
      config: {
        providers: {
          worktrees: {
            sets: [
              { name: 'vibe-kanban', roots: [path.join(workspaces, '*')], idleAfter: '2d' },
              { name: 'claude-code', roots: ['~/code/*/.claude/worktrees'], idleAfter: '1d' },
            ],
          },
        },
      },
    };
  },
};
