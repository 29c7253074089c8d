import { chmodSync, lchownSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory, type Entry } from '../../helpers/inventory.js';
import { sleeperIn } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { addJob, addProject, createOwlDb } from '../../providers/owl/owl-db.js';
import { jobWorktree, owlHome } from '../../providers/owl/scenario.js';
import { writeProjects } from '../../providers/watchfire/fixture.js';

/**
 * One home where every item is dead by its owner's record: a Watchfire session home and a Coding
 * Owl job worktree (a done job, real git, a real owl.db) with a live process inside each, and one
 * of each with none, and a done job's worktree holding an untracked file. A pass that sees keeps the live ones (`in-use`) and deletes the dead ones; a
 * blind pass must delete none of them. Everything is three days old; the run folder (config and
 * report) lies beside the home, outside every inventory.
 */
export interface BlindWorld {
  dir: string;
  home: string;
  runDir: string;
  reportDir: string;
  live: string[];
  dead: string[];
  /** A done job's worktree with an untracked file: unfinished, whether the pass sees or not. */
  unfinished: string;
  /** A config file for the given processCheck, in the run folder. */
  config(processCheck: 'auto' | 'required'): string;
  /** Starts the live processes (as the caller, root): one `sleep` inside each live item. */
  startLiving(): Array<number | undefined>;
  /** Hands the whole world to `uid` (its gid the same), for a pass run as that user. */
  giveTo(uid: number): void;
  snapshot(): Map<string, Entry>;
  /** What changed between two snapshots, but for the files SQLite itself keeps beside a database. */
  changes(before: Map<string, Entry>, after: Map<string, Entry>): ReturnType<typeof diffInventories>;
}

export function blindWorld(): BlindWorld {
  const base = tempDir('aj-blind-');
  chmodSync(base, 0o755);
  const dir = path.join(base, 'world');
  const runDir = path.join(base, 'run');
  mkdirSync(runDir);
  const owl = owlHome(dir);
  const { home } = owl;
  const root = path.join(home, '.watchfire');
  mkdirSync(root, { recursive: true });
  writeProjects({ dir, home, root, runDir, reportDir: path.join(runDir, 'report') }, []);
  const session = (name: string) => {
    const folder = path.join(root, 'codex-home', name);
    put(path.join(folder, 'AGENTS.md'), `# ${name}\n`);
    put(path.join(folder, 'sessions', 'rollout.jsonl'), '{"type":"message"}\n');
    return folder;
  };
  const liveSession = session('live-project:chat');
  const deadSession = session('gone-project:chat');

  const db = createOwlDb(owl.db);
  addProject(db, 'app', owl.repo);
  const liveJob = jobWorktree(owl, 1);
  const deadJob = jobWorktree(owl, 2);
  const unfinished = jobWorktree(owl, 3);
  put(path.join(unfinished, 'notes.md'), 'never committed\n');
  for (const [id, worktree] of [liveJob, deadJob, unfinished].entries())
    addJob(db, { id: id + 1, state: 'done', worktree, branch: `owl/job-${id + 1}` });
  db.close();
  backdate(dir, daysAgo(3));

  const live = [liveSession, liveJob];
  return {
    dir,
    home,
    runDir,
    reportDir: path.join(runDir, 'report'),
    live,
    dead: [deadSession, deadJob],
    unfinished,
    config(processCheck) {
      const file = path.join(runDir, `agent-janitor.${processCheck}.yaml`);
      writeFileSync(
        file,
        stringify({ homes: [home], minAge: '1h', reportDir: path.join(runDir, 'report'), processCheck }),
      );
      return file;
    },
    startLiving: () => live.map((folder) => sleeperIn(folder).pid),
    giveTo(uid) {
      chownTree(dir, uid);
      chownTree(runDir, uid);
    },
    snapshot: () => inventory(dir),
    changes(before, after) {
      const changes = diffInventories(before, after);
      // Reading a WAL-mode database, even read-only, makes and removes the files SQLite keeps beside
      // it, which touches their folder's mtime; every entry of that folder is compared on its own.
      const own = (entry: string) => /\.db-(shm|wal)$/.test(entry);
      const dbFolder = path.relative(dir, path.dirname(owl.db));
      return {
        removed: changes.removed.filter((entry) => !own(entry)),
        changed: changes.changed.filter((entry) => !own(entry) && entry !== dbFolder),
        added: changes.added.filter((entry) => !own(entry)),
      };
    },
  };
}

function chownTree(root: string, uid: number): void {
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    lchownSync(current, uid, uid);
    if (lstatSync(current).isDirectory())
      for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
}
