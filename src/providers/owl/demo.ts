import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { mkdir } from '../../safety/fs/write.js';
import { removeTree } from '../../safety/removal/remove.js';
import { sandboxCommit, sandboxGit, sandboxRepo, writeSandboxFile } from '../../engines/git-worktree/sandbox.js';
import { NEWEST_KNOWN_SCHEMA } from './state.js';
import { openSqlite } from '../../util/sqlite.js';

const DAY = 86_400_000;

// The tables the rule reads, in the shape Owl's migrations leave them at schema 16.
const SCHEMA = `
CREATE TABLE projects (name TEXT PRIMARY KEY, path TEXT NOT NULL, base_branch TEXT NOT NULL, registered TEXT NOT NULL) STRICT;
CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, source TEXT NOT NULL, source_ref TEXT NOT NULL,
  project TEXT NOT NULL REFERENCES projects(name) ON UPDATE CASCADE ON DELETE CASCADE, prompt TEXT NOT NULL, state TEXT NOT NULL,
  position INTEGER, created TEXT NOT NULL, branch TEXT NOT NULL DEFAULT '', worktree TEXT NOT NULL DEFAULT '',
  planned INTEGER NOT NULL DEFAULT 1, plan TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '', effort TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '', ttl INTEGER NOT NULL DEFAULT 10, account TEXT NOT NULL DEFAULT '', blocked_by INTEGER NOT NULL DEFAULT 0,
  UNIQUE (source, source_ref)) STRICT;
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '', log_path TEXT NOT NULL, phase TEXT NOT NULL DEFAULT '', system_prompt TEXT NOT NULL DEFAULT '',
  exit_code INTEGER NOT NULL DEFAULT -1) STRICT;
`;

interface DemoJob {
  id: number;
  state: string;
  prompt: string;
  /** Days ago the job's last run ended; absent for none, null for a run still open. */
  lastRun?: number | null;
}

const JOBS: DemoJob[] = [
  { id: 101, state: 'done', prompt: 'Fix the checkout rounding bug', lastRun: 4 },
  { id: 102, state: 'cancelled', prompt: 'Rewrite the cart in a new framework', lastRun: 5 },
  { id: 105, state: 'done', prompt: 'Add a coupon field', lastRun: 4 },
  { id: 106, state: 'review', prompt: 'Upgrade the payment SDK', lastRun: 12 },
  { id: 107, state: 'active', prompt: 'Translate the storefront', lastRun: null },
  { id: 108, state: 'pending', prompt: 'Add dark mode' },
  { id: 109, state: 'done', prompt: 'Bump dependencies', lastRun: 6 },
];

/**
 * A Coding Owl home with one project and a job in each state the rule tells apart: done and
 * cancelled jobs whose worktrees go, a vanished job with a clean tree (goes) and one with the only
 * copy of a commit (unfinished), uncommitted work, a review overdue, an active job whose daemon is
 * gone, a pending job, and a stale admin entry left when a worktree folder was deleted by hand.
 */
export const owlSandbox: SandboxBuilder = {
  name: 'owl',
  async build(ctx: SandboxContext): Promise<void> {
    const data = path.join(ctx.home, '.local', 'share', 'coding-owl');
    const repo = await sandboxRepo(path.join(ctx.home, 'projects', 'webshop'));
    await sandboxGit(repo, 'config', 'extensions.worktreeConfig', 'true');
    await mkdir(path.join(ctx.home, '.local', 'state', 'coding-owl', 'logs'), 0o755);
    const worktree = (id: number) => path.join(data, 'worktrees', String(id));
    for (const id of [101, 102, 103, 104, 105, 106, 107, 108, 109]) {
      await sandboxGit(repo, 'worktree', 'add', '-q', '-b', `owl/job-${id}`, worktree(id));
      const excludes = await writeSandboxFile(path.join(data, 'worktree-config', String(id), 'excludes'), '.owl/\n');
      await sandboxGit(worktree(id), 'config', '--worktree', 'core.excludesFile', excludes);
      await sandboxCommit(worktree(id), `notes/job-${id}.md`, `Work of job ${id}\n`, `Job ${id}: first step`);
    }
    await writeSandboxFile(path.join(worktree(101), 'test-output.log'), 'ignored build output\n');
    await sandboxGit(worktree(104), 'checkout', '-q', '--detach');
    await sandboxGit(repo, 'branch', '-q', '-D', 'owl/job-104');
    await sandboxCommit(worktree(104), 'notes/idea.md', 'An idea nobody pushed\n', 'Unpushed idea');
    await writeSandboxFile(path.join(worktree(105), 'notes', 'job-105.md'), 'Edited after the last commit\n');
    // Deleted by hand with rm -rf: git's admin entry for it is now stale.
    removeTree(worktree(109));

    writeDatabase(path.join(data, 'owl.db'), repo, worktree, ctx.old.getTime());
    await backdateTree(data, ctx.old);
    await backdateTree(repo, ctx.old);
  },
};

function writeDatabase(file: string, repo: string, worktree: (id: number) => string, oldMs: number): void {
  const iso = (ms: number) => new Date(ms).toISOString();
  const db = openSqlite(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO projects VALUES (?, ?, ?, ?)').run('webshop', repo, 'main', iso(oldMs - 30 * DAY));
    const job = db.prepare(
      `INSERT INTO jobs (id, source, source_ref, project, prompt, state, created, branch, worktree) VALUES (?, 'github', ?, 'webshop', ?, ?, ?, ?, ?)`,
    );
    const run = db.prepare(
      `INSERT INTO runs (job_id, attempt, started, ended, outcome, log_path) VALUES (?, 1, ?, ?, ?, ?)`,
    );
    for (const entry of JOBS) {
      job.run(
        entry.id,
        `issue-${entry.id}`,
        entry.prompt,
        entry.state,
        iso(oldMs - 20 * DAY),
        `owl/job-${entry.id}`,
        worktree(entry.id),
      );
      if (entry.lastRun === undefined) continue;
      const ended = entry.lastRun === null ? '' : iso(Date.now() - entry.lastRun * DAY);
      run.run(
        entry.id,
        iso(Date.now() - ((entry.lastRun ?? 1) + 0.1) * DAY),
        ended,
        entry.lastRun === null ? '' : 'succeeded',
        `logs/${entry.id}.jsonl`,
      );
    }
    db.pragma(`user_version = ${NEWEST_KNOWN_SCHEMA}`);
  } finally {
    db.close();
  }
}
