import { mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { startOf } from '../claude-code/fixtures.js';
import { makeKiloDb, projectIdOf } from '../kilo/fixtures.js';
import { put } from '../../helpers/fs-fixtures.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

/**
 * The worktrees each well-known agent tool leaves, made the way that tool makes them (the same git
 * commands, folder names, branch names and metadata files its source or documentation shows), in
 * one home. Nothing here runs the tools themselves.
 */
export interface ToolsHome {
  root: string;
  home: string;
  /** The repository every tool worked on. */
  shop: string;
  /** Each tool's worktree, by the name of the set that must find it. */
  made: Record<string, string[]>;
  /** Worktrees of the user's own, outside every tool's place: never a candidate. */
  own: string[];
  /** The Agent Manager's half-deleted worktree: the kilo provider's, not a set's. */
  kiloDelete: string;
  codexThread: string;
}

export function buildToolsHome(root: string): ToolsHome {
  const home = path.join(root, 'home');
  const shop = makeRepo(path.join(home, 'src', 'shop'));
  commitFile(shop, 'src/cart.ts', 'export const total = 0;\n', 'cart');
  const head = sh(shop, 'rev-parse', 'HEAD').trim();
  const made: Record<string, string[]> = {};
  const add = (set: string, worktree: string) => {
    made[set] = [...(made[set] ?? []), worktree];
    return worktree;
  };

  // Codex app: `$CODEX_HOME/worktrees/<4-hex>/<repo>`, detached, codex-worktree.json in `git rev-parse --git-path`.
  const codexThread = '019d7e2a-41c3-7b9e-8d21-5f60a1b2c3d4';
  add('codex', codexAppWorktree(shop, path.join(home, '.codex', 'worktrees', 'a1b2', 'shop'), codexThread));

  // Claude Code: `claude --worktree feature-auth` at the repository's top, on branch worktree-<name>;
  // a running subagent's worktree is git-locked. The repository is known from ~/.claude.json.
  const claude = path.join(shop, '.claude', 'worktrees');
  add('claude-code', addWorktree(shop, path.join(claude, 'feature-auth'), 'worktree-feature-auth'));
  const agent = add('claude-code', addWorktree(shop, path.join(claude, 'agent-a1b2c3d4'), 'worktree-agent-a1b2c3d4'));
  // Its lock names a process that runs: this one, with its start, as Claude Code 2.1.332 writes it.
  sh(
    shop,
    'worktree',
    'lock',
    '--reason',
    `claude agent agent-a1b2c3d4 (pid ${process.pid} start ${startOf(process.pid)})`,
    agent,
  );
  add(
    'claude-code',
    addWorktree(shop, path.join(home, '.claude-worktrees', 'shop', 'bright-running-fox'), 'claude/bright-running-fox'),
  );
  put(
    path.join(home, '.claude.json'),
    JSON.stringify({
      numStartups: 41,
      projects: {
        // A session started in a subfolder: the worktrees are at the repository's top.
        [path.join(shop, 'packages', 'web')]: { allowedTools: [], hasTrustDialogAccepted: true },
        [shop]: { allowedTools: [], hasTrustDialogAccepted: true },
        [path.join(home, 'gone-project')]: { allowedTools: [] },
      },
    }),
  );

  // claude-squad: `git worktree add -b <prefix><session> ~/.claude-squad/worktrees/<branch>_<hex> <HEAD>`;
  // the default prefix `<user>/` makes `<user>/` a folder level.
  add(
    'claude-squad',
    addAt(
      shop,
      path.join(home, '.claude-squad', 'worktrees', 'ana', 'fix-login_18a2b3c4d5e6f708'),
      'ana/fix-login',
      head,
    ),
  );

  // Conductor: `~/conductor/workspaces/<repo>/<workspace>`, the workspace on its own branch.
  add('conductor', addWorktree(shop, path.join(home, 'conductor', 'workspaces', 'shop', 'warsaw'), 'ana/warsaw'));

  // container-use: a bare fork under ~/.config/container-use/repos, an environment branch pushed
  // into it from the user's repository, its worktree, and the empty commit that opens it.
  add('container-use', containerUseEnvironment(home, shop, 'fluffy-lion'));

  // Cursor: `~/.cursor/worktrees/<repo>/<5-char id>`, detached at the base commit.
  const cursor = path.join(home, '.cursor', 'worktrees', 'shop', '307Ps');
  mkdirSync(path.dirname(cursor), { recursive: true });
  sh(shop, 'worktree', 'add', '-q', '--detach', cursor, 'HEAD');
  add('cursor', cursor);

  // opencode's server API: `<data>/worktree/<project-id>/<name>` on branch opencode/<name>.
  const projectId = projectIdOf(shop);
  const opencodeData = path.join(home, '.local', 'share', 'opencode');
  add(
    'opencode',
    addWorktree(shop, path.join(opencodeData, 'worktree', projectId, 'calm-river'), 'opencode/calm-river'),
  );

  // Kilo Code: `kilo worktree create feature-x` (branch feature-x under <repo>/.kilo/worktrees), a
  // server-made one in Kilo's data folder, and kilo.db's project row naming the repository.
  const kiloData = path.join(home, '.local', 'share', 'kilo');
  add('kilo', addWorktree(shop, path.join(shop, '.kilo', 'worktrees', 'feature-x'), 'feature-x'));
  add('kilo', addWorktree(shop, path.join(kiloData, 'worktree', projectId, 'brave-owl'), 'opencode/brave-owl'));
  makeKiloDb(path.join(kiloData, 'kilo.db'), { projects: [{ id: projectId, worktree: shop }] });
  // The Agent Manager's delete: the worktree renamed (git is not told), to be removed in the background.
  const doomed = addWorktree(shop, path.join(shop, '.kilo', 'worktrees', 'feature-old'), 'feature-old');
  const kiloDelete = path.join(shop, '.kilo', 'worktrees', '.kilo-delete-9b1f3c2e-7d4a-4e6b-8f0a-1c2d3e4f5a6b');
  renameSync(doomed, kiloDelete);

  // The user's own worktrees: beside the repository, and in a folder of the repository's own.
  const own = [
    addWorktree(shop, path.join(home, 'src', 'shop-feature'), 'feature'),
    addWorktree(shop, path.join(home, 'src', 'x-feature'), 'x-feature'),
    addWorktree(shop, path.join(shop, '.worktrees', 'mine'), 'mine'),
  ];
  // A repository Claude Code never worked in, with a folder shaped like its worktrees: the disk is
  // not searched, so it is not found.
  const other = makeRepo(path.join(home, 'src', 'other'));
  own.push(
    addWorktree(other, path.join(other, '.claude', 'worktrees', 'looks-like-claude'), 'worktree-looks-like-claude'),
  );
  return { root, home, shop, made, own, kiloDelete, codexThread };
}

function addAt(repo: string, folder: string, branch: string, commit: string): string {
  mkdirSync(path.dirname(folder), { recursive: true });
  sh(repo, 'worktree', 'add', '-q', '-b', branch, folder, commit);
  return folder;
}

/** The Codex app's worktree for a thread, with the metadata it writes beside the worktree's git data. */
export function codexAppWorktree(repo: string, worktree: string, thread: string): string {
  mkdirSync(path.dirname(worktree), { recursive: true });
  sh(repo, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
  const gitPath = (name: string) => {
    const found = sh(worktree, 'rev-parse', '--git-path', name).trim();
    return path.isAbsolute(found) ? found : path.join(worktree, found);
  };
  const now = Math.floor(Date.now() / 1000);
  put(
    gitPath('codex-worktree.json'),
    JSON.stringify(
      {
        version: 1,
        manager: 'codex-app',
        backend: 'git',
        source: 'app',
        location: 'codexHome',
        id: '5f1c0e9a2b7d4c38',
        name: path.basename(path.dirname(worktree)),
        slug: path.basename(path.dirname(worktree)),
        branch: null,
        repoId: '5f1c0e9a2b7d4c38',
        repoName: path.basename(repo),
        sourceRepoRoot: repo,
        originalRelativeCwd: '',
        worktreeGitRoot: worktree,
        workspaceCwd: worktree,
        createdAt: now,
        updatedAt: now,
        ownerThreadId: thread,
        tmuxSession: null,
      },
      null,
      2,
    ),
  );
  put(gitPath('codex-thread.json'), JSON.stringify({ version: 1, ownerThreadId: thread }, null, 2));
  return worktree;
}

/** container-use's `Create`: fork, push, worktree add in the fork, fetch back, the opening commit. */
function containerUseEnvironment(home: string, repo: string, id: string): string {
  const base = path.join(home, '.config', 'container-use');
  // A repository without an origin gets a fork named after its own path.
  const fork = path.join(base, 'repos', repo.replace(/^\/+/, ''));
  mkdirSync(fork, { recursive: true });
  sh(fork, 'init', '-q', '--bare', '--template=');
  sh(repo, 'remote', 'add', 'container-use', fork);
  sh(repo, 'push', '-q', 'container-use', `${sh(repo, 'rev-parse', 'HEAD').trim()}:refs/heads/${id}`);
  const worktree = path.join(base, 'worktrees', id);
  mkdirSync(path.dirname(worktree), { recursive: true });
  sh(fork, 'worktree', 'add', '-q', worktree, id);
  sh(repo, 'fetch', '-q', 'container-use', id);
  sh(worktree, 'commit', '-q', '--allow-empty', '-m', `Create environment ${id}: Add a login page`);
  return worktree;
}
