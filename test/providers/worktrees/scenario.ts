import { mkdirSync, renameSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';
import { startOf } from '../claude-code/fixtures.js';

export interface SetsWorld {
  world: string;
  home: string;
  repo: string;
  /** vibe-kanban's workspace folder: the root its worktrees sit in. */
  workspace: string;
  /** Claude Code's `<repo>/.claude/worktrees`. */
  claude: string;
  /** The repository that sat on the volume now missing. */
  unmountedRepo: string;
  at(name: string): string;
  config: Record<string, unknown>;
}

const HOURS = 3_600_000;

/**
 * Worktrees of agent tools in every state the rule tells apart, in two sets: vibe-kanban's
 * `/var/tmp/vibe-kanban/worktrees/<ws>/` (globbed) and Claude Code's `.claude/worktrees` (a `~/` root).
 */
export function buildSetsWorld(world: string): SetsWorld {
  const home = path.join(world, 'home');
  const repo = makeRepo(path.join(home, 'src', 'app'));
  const workspace = path.join(world, 'var-tmp', 'vibe-kanban', 'worktrees', 'ws-1');
  const claude = path.join(repo, '.claude', 'worktrees');
  mkdirSync(workspace, { recursive: true });
  const at = (name: string) => (name.startsWith('agent-') ? path.join(claude, name) : path.join(workspace, name));
  const add = (name: string, branch = `vk/${name}`) => addWorktree(repo, at(name), branch);

  add('merged-clean');
  put(path.join(at('merged-clean'), 'debug.log'), 'ignored output, not work\n');
  add('merged-later');
  commitFile(at('merged-later'), 'feature.txt', 'merged work\n');
  sh(repo, 'merge', '-q', '--ff-only', 'vk/merged-later');
  add('pushed');
  commitFile(at('pushed'), 'pushed.txt', 'pushed work\n');
  sh(repo, 'update-ref', 'refs/remotes/origin/vk/pushed', sh(at('pushed'), 'rev-parse', 'HEAD').trim());
  add('tagged');
  sh(at('tagged'), 'checkout', '-q', '--detach');
  commitFile(at('tagged'), 'release.txt', 'released\n');
  sh(repo, 'tag', 'v1', sh(at('tagged'), 'rev-parse', 'HEAD').trim());
  add('dirty');
  put(path.join(at('dirty'), 'README.md'), '# edited, not committed\n');
  add('untracked');
  put(path.join(at('untracked'), 'src', 'new-module.ts'), 'export const x = 1;\n');
  add('detached-unpushed');
  sh(at('detached-unpushed'), 'checkout', '-q', '--detach');
  commitFile(at('detached-unpushed'), 'only-copy.txt', 'the only copy\n');
  add('branch-unmerged');
  commitFile(at('branch-unmerged'), 'wip.txt', 'unmerged work\n');
  add('with-submodule');
  const lib = makeRepo(path.join(home, 'src', 'lib'));
  sh(at('with-submodule'), 'submodule', 'add', '-q', lib, 'lib');
  sh(at('with-submodule'), 'commit', '-q', '-m', 'add submodule');
  sh(repo, 'branch', '-q', 'keep/with-submodule', 'vk/with-submodule');
  add('recent');
  add('admin-recent');
  add('in-use');
  makeRepo(path.join(workspace, 'a-clone'));
  mkdirSync(claude, { recursive: true });
  addWorktree(repo, path.join(claude, 'agent-subagent'), 'worktree-agent-subagent');
  sh(
    repo,
    'worktree',
    'lock',
    '--reason',
    // A running subagent's: the lock names a process that runs (this one, with its start).
    `claude agent agent-subagent (pid ${process.pid} start ${startOf(process.pid)})`,
    path.join(claude, 'agent-subagent'),
  );
  addWorktree(repo, path.join(claude, 'agent-done'), 'worktree-agent-done');

  // A second repository on a volume that is then unmounted: its worktree stays in the root.
  const unmountedRepo = makeRepo(path.join(world, 'volume', 'repo2'));
  addWorktree(unmountedRepo, at('owner-unmounted'), 'vk/owner-unmounted');
  put(path.join(at('owner-unmounted'), 'notes.txt'), 'work whose repository is away\n');

  backdate(world, daysAgo(3));
  const fiveHoursAgo = new Date(Date.now() - 5 * HOURS);
  utimesSync(put(path.join(at('recent'), 'scratch.txt'), 'still being written\n'), fiveHoursAgo, fiveHoursAgo);
  utimesSync(path.join(at('recent')), fiveHoursAgo, fiveHoursAgo);
  utimesSync(path.join(repo, '.git', 'worktrees', 'admin-recent', 'HEAD'), fiveHoursAgo, fiveHoursAgo);
  renameSync(path.join(world, 'volume'), path.join(world, 'volume-unmounted'));

  return {
    world,
    home,
    repo,
    workspace,
    claude,
    unmountedRepo: path.join(world, 'volume-unmounted', 'repo2'),
    at,
    config: {
      homes: [home],
      minAge: '1h',
      providers: {
        worktrees: {
          sets: [
            {
              name: 'vibe-kanban',
              roots: [path.join(world, 'var-tmp', 'vibe-kanban', 'worktrees', '*')],
              idleAfter: '2d',
            },
            { name: 'claude-code', roots: ['~/src/*/.claude/worktrees'], idleAfter: '1d' },
          ],
        },
      },
    },
  };
}
