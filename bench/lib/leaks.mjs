import { createHash, randomBytes } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { backdateTree, ensureDir, put, writeSized } from './files.mjs';
import { git } from './git.mjs';

const sha1 = (text) => createHash('sha1').update(text).digest('hex');

/**
 * The leaks users lose the most disk to, beside the fleet (the kilo and claude-code providers' pages): opencode
 * snapshot repositories of worktrees that still exist, each holding git's temporary pack files a
 * killed gc or add left, and a Claude Code task output root of ended sessions. Written into a home
 * and a temp folder of their own, so that a second config can add them to the fleet's: the same
 * pass over the same fleet, with and without them. Everything is as old as the fleet.
 */
export function buildLeaks(fleet, { snapshots, sessions }) {
  const base = path.join(fleet.dir, 'leaks');
  const home = path.join(base, 'home');
  const tmp = path.join(base, 'tmp');
  const data = path.join(home, '.local', 'share', 'opencode');
  const snapshotRoot = path.join(data, 'snapshot');
  const template = buildSnapshotTemplate(path.join(base, 'template'));
  const templateConfig = readFileSync(path.join(template.gitdir, 'config'), 'utf8');
  const projectId = sha1('leaks-project');
  let garbage = 0;
  for (let i = 0; i < snapshots; i += 1) {
    // A worktree that still exists: its repository is alive, and only its garbage may go.
    const worktree = path.join(home, 'code', 'app', `wt-${i}`);
    put(path.join(worktree, 'README.md'), `# worktree ${i}\n`);
    const gitdir = path.join(snapshotRoot, projectId, sha1(worktree));
    cpSync(template.gitdir, gitdir, { recursive: true, verbatimSymlinks: true });
    writeFileSync(path.join(gitdir, 'config'), templateConfig.replace(template.worktree, worktree));
    for (const name of [`tmp_pack_${randomBytes(3).toString('hex')}`, `tmp_idx_${randomBytes(3).toString('hex')}`]) {
      writeFileSync(path.join(gitdir, 'objects', 'pack', name), randomBytes(64 * 1024));
      garbage += 1;
    }
  }
  backdateTree(data, fleet.old);

  // Claude Code's `claude-<uid>` of the homes' owner: slug folders of ended sessions, ten each.
  const uid = process.getuid();
  const claudeRoot = path.join(tmp, `claude-${uid}`);
  const slugs = Math.ceil(sessions / 10);
  let seed = 0;
  for (let s = 0; s < slugs; s += 1) {
    const slug = `-home-user-projects-app-${s}`;
    for (let k = 0; k < 10 && s * 10 + k < sessions; k += 1) {
      const sid = uuidFrom(`${s}-${k}`);
      const tasks = path.join(claudeRoot, slug, sid, 'tasks');
      ensureDir(tasks);
      seed += 1;
      writeSized(path.join(tasks, `b${randomBytes(4).toString('hex')}.output`), seed);
    }
  }
  backdateTree(tmp, fleet.old);

  const config = path.join(fleet.dir, 'agent-janitor-leaks.yaml');
  writeFileSync(
    config,
    readFileSync(fleet.config, 'utf8')
      .replace(/^homes: \[(.*)\]$/m, `homes: [$1, ${JSON.stringify(home)}]`)
      .replace(/(tmpDir: )\[.*\]/, `$1[${JSON.stringify(tmp)}]`),
  );
  return {
    config,
    roots: [snapshotRoot, claudeRoot],
    // The garbage files one by one; a slug folder whose every session ended goes as one item.
    deadItems: garbage + slugs,
    snapshots,
    sessions,
  };
}

/** One snapshot repository as opencode makes it (`GIT_DIR=<it> GIT_WORK_TREE=<worktree> git init`, a snapshot tree). */
function buildSnapshotTemplate(dir) {
  const gitdir = path.join(dir, 'gitdir');
  const worktree = path.join(dir, 'worktree');
  ensureDir(gitdir);
  ensureDir(path.join(worktree, 'src'));
  for (let k = 0; k < 40; k += 1) writeSized(path.join(worktree, 'src', `file-${k}.ts`), 9_000_000 + k);
  const env = { GIT_DIR: gitdir, GIT_WORK_TREE: worktree };
  git(['init', '-q'], { env });
  git(['add', '-A'], { env });
  git(['write-tree'], { env });
  ensureDir(path.join(gitdir, 'objects', 'pack'));
  return { gitdir, worktree };
}

function uuidFrom(text) {
  const hex = sha1(text);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
