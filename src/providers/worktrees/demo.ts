import path from 'node:path';
import {
  backdateTree,
  type SandboxBuilder,
  type SandboxContext,
  type SandboxExtras,
} from '../../provider-api/sandbox.js';
import { lutimes } from '../../safety/fs/write.js';
import { processStart } from '../../safety/processes/process-start.js';
import { sandboxCommit, sandboxGit, sandboxRepo, writeSandboxFile } from '../../engines/git-worktree/sandbox.js';

const DAY = 86_400_000;

/**
 * Agent worktrees with no database to ask, found by the built-in sets: Claude Code's
 * `.claude/worktrees` in a repository its `~/.claude.json` knows, and the Codex app's
 * `~/.codex/worktrees/<id>/<repo>` with its codex-worktree.json; plus a vibe-kanban workspace, its
 * built-in set pointed at the sandbox's /var/tmp. Merged and pushed trees go; dirty, untracked-only
 * and unpushed detached trees are unfinished; a locked subagent tree and one still being worked on
 * are kept.
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
    // Claude Code's own lock text, naming a process that runs (the demo's own): Claude Code still claims it.
    const self = processStart(process.pid);
    const start = self.state === 'running' ? ` start ${self.start}` : '';
    await sandboxGit(
      repo,
      'worktree',
      'lock',
      '--reason',
      `claude agent agent-c3d4 (pid ${process.pid}${start})`,
      running,
    );
    const fresh = await add(path.join(claude, 'agent-e5f6'), 'worktree-agent-e5f6');
    // Claude Code's own record of the projects it worked in: how its set finds the repository.
    await writeSandboxFile(
      path.join(ctx.home, '.claude.json'),
      `${JSON.stringify({ numStartups: 12, projects: { [repo]: { allowedTools: [], hasTrustDialogAccepted: true } } }, null, 2)}\n`,
    );

    // The Codex app: a detached worktree per thread, its metadata in the worktree's git folder.
    const codex = path.join(ctx.home, '.codex', 'worktrees');
    const finished = await codexWorktree(repo, path.join(codex, '7c1e', 'api'), '019d4a21-6b7e-7c10-9a4e-3f2d1c0b9a87');
    const unpushed = await codexWorktree(repo, path.join(codex, 'b42f', 'api'), '019d4a35-0e1f-7d22-8b3c-4e5f6a7b8c9d');
    await sandboxCommit(unpushed, 'src/retry.ts', 'export const retries = 3;\n', 'Retry failed requests');

    await backdateTree(repo, ctx.old);
    // Codex threads are kept a week (its set's idleAfter): these two were left ten days ago.
    const tenDaysAgo = new Date(Date.now() - 10 * DAY);
    for (const worktree of [finished, unpushed]) {
      const admin = (await sandboxGit(worktree, 'rev-parse', '--absolute-git-dir')).trim();
      await backdateTree(admin, tenDaysAgo);
    }
    await backdateTree(path.join(ctx.home, '.codex'), tenDaysAgo);
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
            // The built-in vibe-kanban set, pointed at the sandbox's own /var/tmp.
            sets: [{ name: 'vibe-kanban', roots: [path.join(workspaces, '*')] }],
          },
        },
      },
    };
  },
};

/** What the Codex app leaves for a thread: a detached worktree and codex-worktree.json beside its git data. */
async function codexWorktree(repo: string, worktree: string, thread: string): Promise<string> {
  await sandboxGit(repo, 'worktree', 'add', '-q', '--detach', worktree, 'main');
  const gitPath = (name: string) => sandboxGit(worktree, 'rev-parse', '--path-format=absolute', '--git-path', name);
  const now = Math.floor(Date.now() / 1000);
  const metadata = {
    version: 1,
    manager: 'codex-app',
    backend: 'git',
    source: 'app',
    location: 'codexHome',
    id: 'a3f9c2d17e5b4a08',
    name: path.basename(path.dirname(worktree)),
    slug: path.basename(path.dirname(worktree)),
    branch: null,
    repoId: 'a3f9c2d17e5b4a08',
    repoName: path.basename(repo),
    sourceRepoRoot: repo,
    originalRelativeCwd: '',
    worktreeGitRoot: worktree,
    workspaceCwd: worktree,
    createdAt: now,
    updatedAt: now,
    ownerThreadId: thread,
    tmuxSession: null,
  };
  await writeSandboxFile((await gitPath('codex-worktree.json')).trim(), `${JSON.stringify(metadata, null, 2)}\n`);
  await writeSandboxFile(
    (await gitPath('codex-thread.json')).trim(),
    `${JSON.stringify({ version: 1, ownerThreadId: thread }, null, 2)}\n`,
  );
  return worktree;
}
