import Database from 'better-sqlite3';

/**
 * Coding Owl's owl.db as its append-only migrations leave it: STRICT tables, one migration per
 * `PRAGMA user_version` step, 16 at the newest release read. Written from the published schema
 * (projects, jobs, runs and what later migrations added to them).
 */
const OWL_MIGRATIONS: readonly string[] = [
  `CREATE TABLE projects (name TEXT PRIMARY KEY, path TEXT NOT NULL, base_branch TEXT NOT NULL, registered TEXT NOT NULL) STRICT;`,
  `CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, source TEXT NOT NULL, source_ref TEXT NOT NULL,
     project TEXT NOT NULL REFERENCES projects(name) ON UPDATE CASCADE ON DELETE CASCADE, prompt TEXT NOT NULL,
     state TEXT NOT NULL, position INTEGER, created TEXT NOT NULL, UNIQUE (source, source_ref)) STRICT;
   CREATE INDEX jobs_queue ON jobs (position) WHERE position IS NOT NULL;`,
  `ALTER TABLE jobs ADD COLUMN branch TEXT NOT NULL DEFAULT '';
   ALTER TABLE jobs ADD COLUMN worktree TEXT NOT NULL DEFAULT '';
   CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
     attempt INTEGER NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL DEFAULT '',
     error TEXT NOT NULL DEFAULT '', log_path TEXT NOT NULL) STRICT;
   CREATE INDEX runs_by_job ON runs (job_id, attempt);
   CREATE INDEX runs_in_progress ON runs (id) WHERE outcome = '';`,
  `ALTER TABLE jobs ADD COLUMN planned INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE jobs ADD COLUMN plan TEXT NOT NULL DEFAULT '';
   ALTER TABLE jobs ADD COLUMN model TEXT NOT NULL DEFAULT '';
   ALTER TABLE jobs ADD COLUMN effort TEXT NOT NULL DEFAULT '';
   ALTER TABLE runs ADD COLUMN phase TEXT NOT NULL DEFAULT '';`,
  `CREATE TABLE check_results (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
     position INTEGER NOT NULL, name TEXT NOT NULL, command TEXT NOT NULL, passed INTEGER NOT NULL,
     exit_code INTEGER NOT NULL DEFAULT -1, output TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '') STRICT;
   ALTER TABLE jobs ADD COLUMN reason TEXT NOT NULL DEFAULT '';`,
  `ALTER TABLE jobs ADD COLUMN ttl INTEGER NOT NULL DEFAULT 10;`,
  `CREATE TABLE accounts (name TEXT PRIMARY KEY COLLATE NOCASE, driver TEXT NOT NULL, config_dir TEXT NOT NULL,
     credential_ref TEXT NOT NULL, failover_allowed INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL) STRICT;
   ALTER TABLE jobs ADD COLUMN account TEXT NOT NULL DEFAULT '';`,
  `CREATE TABLE run_skills (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, source TEXT NOT NULL,
     ref TEXT NOT NULL, commit_sha TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (run_id, name)) STRICT;`,
  `ALTER TABLE check_results ADD COLUMN verifier TEXT NOT NULL DEFAULT 'command';`,
  `CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '',
     created TEXT NOT NULL, updated TEXT NOT NULL, updated_unix INTEGER NOT NULL DEFAULT 0) STRICT;`,
  `CREATE TABLE account_usage (account TEXT NOT NULL COLLATE NOCASE, window_name TEXT NOT NULL, utilization REAL NOT NULL,
     resets_unix INTEGER NOT NULL, observed_unix INTEGER NOT NULL, PRIMARY KEY (account, window_name)) STRICT;`,
  `CREATE TABLE run_permissions (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position INTEGER NOT NULL,
     rule TEXT NOT NULL, PRIMARY KEY (run_id, position)) STRICT;`,
  `ALTER TABLE runs ADD COLUMN system_prompt TEXT NOT NULL DEFAULT '';`,
  `ALTER TABLE jobs ADD COLUMN blocked_by INTEGER NOT NULL DEFAULT 0;`,
  `CREATE TABLE job_labels (job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, label TEXT NOT NULL,
     PRIMARY KEY (job_id, label)) STRICT;`,
  `ALTER TABLE runs ADD COLUMN exit_code INTEGER NOT NULL DEFAULT -1;`,
];

const OWL_STATES = ['pending', 'active', 'blocked', 'review', 'done', 'cancelled', 'exhausted'] as const;
type OwlJobState = (typeof OWL_STATES)[number];

export interface JobRow {
  id: number;
  state: OwlJobState | string;
  project?: string;
  worktree?: string;
  branch?: string;
  created?: Date;
}

export interface RunRow {
  jobId: number;
  started: Date;
  /** Omitted for a run in progress (empty ended and outcome). */
  ended?: Date;
  outcome?: 'succeeded' | 'failed' | 'interrupted';
}

/** Owl's RFC 3339 text with nanoseconds, in UTC. */
const owlTime = (when: Date): string => when.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');

/** Makes owl.db at `file` by running the first `version` migrations, the way Owl's store does. */
export function createOwlDb(file: string, version = OWL_MIGRATIONS.length): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  OWL_MIGRATIONS.slice(0, version).forEach((sql, index) => {
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${index + 1}`);
    })();
  });
  return db;
}

export function addProject(db: Database.Database, name: string, repo: string): void {
  db.prepare('INSERT INTO projects (name, path, base_branch, registered) VALUES (?, ?, ?, ?)').run(
    name,
    repo,
    'main',
    owlTime(new Date('2026-01-01T00:00:00Z')),
  );
}

export function addJob(db: Database.Database, job: JobRow): void {
  db.prepare(
    `INSERT INTO jobs (id, source, source_ref, project, prompt, state, position, created, branch, worktree)
     VALUES (?, 'manual', ?, ?, 'do the thing', ?, NULL, ?, ?, ?)`,
  ).run(
    job.id,
    `ref-${job.id}`,
    job.project ?? 'app',
    job.state,
    owlTime(job.created ?? new Date('2026-01-02T00:00:00Z')),
    job.branch ?? '',
    job.worktree ?? '',
  );
}

export function addRun(db: Database.Database, run: RunRow): void {
  const attempt = (db.prepare('SELECT COUNT(*) + 1 AS n FROM runs WHERE job_id = ?').get(run.jobId) as { n: number }).n;
  db.prepare('INSERT INTO runs (job_id, attempt, started, ended, outcome, log_path) VALUES (?, ?, ?, ?, ?, ?)').run(
    run.jobId,
    attempt,
    owlTime(run.started),
    run.ended ? owlTime(run.ended) : '',
    run.ended ? (run.outcome ?? 'succeeded') : '',
    `/logs/${run.jobId}-${attempt}.jsonl`,
  );
}
