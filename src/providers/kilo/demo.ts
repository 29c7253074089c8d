import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { git } from '../../git/git.js';
import { mkdir, writeFile } from '../../safety/fs/write.js';
import { removeTree } from '../../safety/removal/remove.js';
import { materializePin, sha1hex } from './layout.js';
import { openSqlite } from '../../util/sqlite.js';
import { leaveGitGarbage } from '../../engines/git-garbage/sandbox.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Demo User',
  GIT_AUTHOR_EMAIL: 'demo@example.test',
  GIT_COMMITTER_NAME: 'Demo User',
  GIT_COMMITTER_EMAIL: 'demo@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/**
 * A Kilo Code user's disk: a repository with live and removed worktrees in both managed places,
 * their checkpoint repositories (one still seeded, with its pin), a worktree git still lists, one
 * the Agent Manager still lists, one made by hand elsewhere, a legacy per-project repository, a
 * repository Kilo holds locked, the leftovers of interrupted deletions, and the temporary pack a
 * killed git left in a live repository.
 */
export const kiloSandbox: SandboxBuilder = {
  name: 'kilo',
  async build(ctx: SandboxContext): Promise<void> {
    const data = path.join(ctx.home, '.local', 'share', 'kilo');
    const state = path.join(ctx.home, '.local', 'state', 'kilo');
    const repo = path.join(ctx.root, 'projects', 'shop');
    await makeRepo(repo);
    const projectId = (await git(['-C', repo, 'rev-list', '--max-parents=0', 'HEAD'])).trim();
    const managed = (name: string) => path.join(repo, '.kilo', 'worktrees', name);
    const built: string[] = [];

    const live = await snapshot(data, projectId, repo);
    built.push(live);
    // A git add killed while it streamed a large file: the temporary pack it leaves in a live repository.
    await leaveGitGarbage(live, 'q7Hx2K', 3);
    for (const name of ['feature-live', 'feature-done', 'feature-crashed', 'feature-listed', 'feature-locked']) {
      await git(['-C', repo, 'worktree', 'add', '-q', '-b', name, managed(name)]);
      await writeFile(path.join(managed(name), 'notes.md'), `work on ${name}\n`);
      built.push(await snapshot(data, projectId, managed(name), name === 'feature-done' ? repo : undefined));
    }
    const handmade = path.join(ctx.root, 'scratch', 'my-experiment');
    await git(['-C', repo, 'worktree', 'add', '-q', '-b', 'experiment', handmade]);
    built.push(await snapshot(data, projectId, handmade));
    const serverMade = path.join(data, 'worktree', projectId, 'calm-river');
    await git(['-C', repo, 'worktree', 'add', '-q', '-b', 'opencode/calm-river', serverMade]);
    built.push(await snapshot(data, projectId, serverMade, repo));

    // `kilo worktree remove`, the Agent Manager's delete, a crash that left git's admin entry.
    for (const name of ['feature-done', 'feature-listed', 'feature-locked'])
      await removeWorktree(repo, managed(name), name);
    await removeWorktree(repo, handmade, 'experiment');
    await removeWorktree(repo, serverMade, 'opencode/calm-river');
    // Gone while git still lists it (a crash, an unmounted volume).
    removeTree(managed('feature-crashed'));
    await writeFile(
      path.join(repo, '.kilo', 'agent-manager.json'),
      JSON.stringify(
        {
          worktrees: {
            'wt-1790000000000-1': {
              branch: 'feature-listed',
              path: managed('feature-listed'),
              parentBranch: 'main',
              createdAt: ctx.old.toISOString(),
            },
          },
          sessions: {},
        },
        null,
        2,
      ),
    );

    // Leftovers of deletions that were interrupted.
    const trash = path.join(repo, '.kilo', 'worktrees', '.kilo-delete-9b1f3c2e-7d4a-4e6b-8f0a-1c2d3e4f5a6b');
    await writeFile(path.join(await mkdirp(path.join(trash, 'src')), 'half-deleted.ts'), 'export {};\n');
    const quarantine = path.join(
      data,
      'snapshot',
      projectId,
      `.${sha1hex(managed('feature-old'))}.cleanup-2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d`,
    );
    await writeFile(
      path.join(await mkdirp(path.join(quarantine, 'objects', 'pack')), 'pack-half.pack'),
      'x'.repeat(4096),
    );
    built.push(trash, quarantine, await legacyRepo(data, repo));

    await kiloDatabase(path.join(data, 'kilo.db'), projectId, repo, serverMade);
    for (const folder of [...built, path.join(repo, '.kilo'), path.join(data, 'snapshot')])
      await backdateTree(folder, ctx.old);

    // A live Kilo process holds this repository's lock right now.
    const lock = path.join(
      state,
      'locks',
      `${sha1hex(`snapshot:${path.join(data, 'snapshot', projectId, sha1hex(managed('feature-locked')))}`)}.lock`,
    );
    await mkdirp(lock, 0o700);
    await writeFile(path.join(lock, 'heartbeat'), '');
    await writeFile(
      path.join(lock, 'meta.json'),
      JSON.stringify({
        token: '0f8e2d4c-1b3a-4c5d-8e6f-7a9b0c1d2e3f',
        pid: 4242,
        hostname: 'devbox-1',
        createdAt: new Date().toISOString(),
      }),
    );
  },
};

async function makeRepo(repo: string): Promise<void> {
  await mkdirp(path.join(repo, 'src'));
  await git(['init', '-q', '-b', 'main', repo], { env: IDENTITY });
  await writeFile(path.join(repo, 'README.md'), '# shop\n');
  await writeFile(
    path.join(repo, 'src', 'cart.ts'),
    'export const total = (prices: number[]) => prices.reduce((a, b) => a + b, 0);\n',
  );
  await git(['-C', repo, 'add', '-A'], { env: IDENTITY });
  await git(['-C', repo, 'commit', '-q', '-m', 'cart'], { env: IDENTITY });
}

/** A checkpoint repository made as Kilo makes it; `seededFrom` leaves the seeding leftovers and the pin. */
async function snapshot(data: string, projectId: string, worktree: string, seededFrom?: string): Promise<string> {
  const gitdir = path.join(data, 'snapshot', projectId, sha1hex(worktree));
  await mkdirp(gitdir);
  const env = { ...IDENTITY, GIT_DIR: gitdir, GIT_WORK_TREE: worktree };
  await git(['init', '-q'], { env });
  await git(['--git-dir', gitdir, 'config', 'core.autocrlf', 'false'], { env: IDENTITY });
  if (seededFrom) {
    await mkdirp(path.join(gitdir, 'seed-objects', 'pack'));
    await writeFile(
      path.join(await mkdirp(path.join(gitdir, 'objects', 'info')), 'alternates'),
      `${path.join(seededFrom, '.git', 'objects')}\n${path.join(gitdir, 'seed-objects')}\n`,
    );
    const tree = (await git(['-C', seededFrom, 'rev-parse', 'HEAD^{tree}'], { env: IDENTITY })).trim();
    await git(['-C', seededFrom, 'update-ref', materializePin(gitdir), tree], { env: IDENTITY });
  }
  await git(['add', '-A'], { env });
  const tree = (await git(['write-tree'], { env })).trim();
  await git(['update-ref', `refs/kilo/snapshots/1790000000000/${tree}`, tree], { env });
  await git(['commit', '-q', '-m', 'snapshot'], { env });
  return gitdir;
}

async function removeWorktree(repo: string, worktree: string, branch: string): Promise<void> {
  await git(['-C', repo, 'worktree', 'remove', '--force', worktree], { env: IDENTITY });
  await git(['-C', repo, 'branch', '-D', branch], { env: IDENTITY });
}

/** The old per-project layout: one git dir for the whole project, `snapshot/<project-id>/`. */
async function legacyRepo(data: string, worktree: string): Promise<string> {
  const gitdir = path.join(data, 'snapshot', 'legacy-project');
  await mkdirp(gitdir);
  const env = { ...IDENTITY, GIT_DIR: gitdir, GIT_WORK_TREE: worktree };
  await git(['init', '-q'], { env });
  await git(['add', '-A'], { env });
  await git(['commit', '-q', '-m', 'snapshot'], { env });
  return gitdir;
}

async function kiloDatabase(file: string, projectId: string, repo: string, serverMade: string): Promise<void> {
  const db = openSqlite(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_url_override text, icon_color text,
      time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL, commands text);
      CREATE TABLE project_directory (project_id text NOT NULL, directory text NOT NULL, type text, strategy text, time_created integer NOT NULL,
      PRIMARY KEY (project_id, directory));
      CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL,
      path text, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);`);
    db.prepare(
      'INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(projectId, repo, 'git', 1, 1, '[]');
    db.prepare('INSERT INTO project_directory (project_id, directory, time_created) VALUES (?, ?, ?)').run(
      projectId,
      repo,
      1,
    );
    db.prepare(
      'INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run('ses_demo0000000000000000000001', projectId, 'calm-river', serverMade, 'Add a cart total', '7.7.9', 1, 1);
  } finally {
    db.close();
  }
}

async function mkdirp(dir: string, mode?: number): Promise<string> {
  await mkdir(dir, mode);
  return dir;
}
