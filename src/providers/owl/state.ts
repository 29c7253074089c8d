import type Database from 'better-sqlite3';
import { SourceOfTruthError } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { decodeBytes } from '../../safety/fs/names.js';
import { readOwnerDatabase } from '../../util/sqlite.js';

/** The newest owl.db schema (PRAGMA user_version) whose layout these columns were read from. */
export const NEWEST_KNOWN_SCHEMA = 16;

export interface OwlJob {
  id: number;
  state: string;
  /** The recorded worktree path, '' when the job has none yet. */
  worktree: string;
  branch: string;
  project: string;
  /** When the job was made (ms), null when the column is absent or unreadable. */
  createdMs: number | null;
}

interface OwlProject {
  name: string;
  path: string;
}

export interface OwlState {
  userVersion: number;
  jobs: Map<number, OwlJob>;
  projects: OwlProject[];
  /** The newest `runs.ended` of each job (ms). */
  lastRunEnded: Map<number, number>;
  /** The ids of runs still open (empty outcome), by job. */
  openRuns: Map<number, number[]>;
}

// The columns the rule reads; any one missing means a schema this reader does not know.
const NEEDED: Record<string, string[]> = {
  projects: ['name', 'path'],
  jobs: ['id', 'state', 'worktree', 'project'],
  runs: ['id', 'job_id', 'ended', 'outcome'],
};

/** Reads owl.db read-only. Any doubt about the schema fails closed with a sentence naming the file. */
export async function readOwlState(file: string): Promise<OwlState> {
  const stats = await lstatOrNull(file);
  if (!stats) throw new SourceOfTruthError(`${file} is missing, so no job can be matched to its worktree`);
  if (!stats.isFile()) throw new SourceOfTruthError(`${file} is not a regular file`);
  return readOwnerDatabase(file, 2_000, (db) => readFrom(db, file));
}

function readFrom(db: Database.Database, file: string): OwlState {
  const userVersion = Number(db.pragma('user_version', { simple: true }));
  if (!Number.isInteger(userVersion) || userVersion < 1) {
    throw new SourceOfTruthError(
      `${file}: unknown schema (user_version ${userVersion}): not a Coding Owl database this reader knows`,
    );
  }
  const columns = new Map<string, Set<string>>();
  for (const [table, needed] of Object.entries(NEEDED)) {
    const present = new Set(
      (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map(
        (row) => row.name,
      ),
    );
    const missing = needed.filter((column) => !present.has(column));
    if (missing.length > 0) {
      throw new SourceOfTruthError(
        `${file}: unknown schema (user_version ${userVersion}, newest known ${NEWEST_KNOWN_SCHEMA}): ` +
          `${present.size === 0 ? `table ${table} is missing` : `column ${missing.map((c) => `${table}.${c}`).join(', ')} missing`}`,
      );
    }
    columns.set(table, present);
  }
  const has = (table: string, column: string) => columns.get(table)?.has(column) ?? false;

  const jobs = new Map<number, OwlJob>();
  // Paths are read as their bytes: Owl may record a folder whose name is not UTF-8.
  const jobSql = `SELECT id, state, CAST(worktree AS BLOB) AS worktree, project, ${has('jobs', 'branch') ? 'branch' : "''"} AS branch, ${has('jobs', 'created') ? 'created' : 'NULL'} AS created FROM jobs`;
  for (const row of db.prepare(jobSql).all() as Array<Record<string, unknown>>) {
    const id = Number(row.id);
    jobs.set(id, {
      id,
      state: String(row.state ?? ''),
      worktree: pathText(row.worktree),
      branch: String(row.branch ?? ''),
      project: String(row.project ?? ''),
      createdMs: parseTime(row.created),
    });
  }
  const projects = (
    db.prepare('SELECT name, CAST(path AS BLOB) AS path FROM projects').all() as Array<Record<string, unknown>>
  ).map((row) => ({
    name: String(row.name),
    path: pathText(row.path),
  }));
  const lastRunEnded = new Map<number, number>();
  const openRuns = new Map<number, number[]>();
  for (const row of db.prepare('SELECT id, job_id, ended, outcome FROM runs').all() as Array<Record<string, unknown>>) {
    const jobId = Number(row.job_id);
    if (String(row.outcome ?? '') === '') openRuns.set(jobId, [...(openRuns.get(jobId) ?? []), Number(row.id)]);
    const ended = parseTime(row.ended);
    if (ended !== null && ended > (lastRunEnded.get(jobId) ?? -Infinity)) lastRunEnded.set(jobId, ended);
  }
  return { userVersion, jobs, projects, lastRunEnded, openRuns };
}

function pathText(value: unknown): string {
  return Buffer.isBuffer(value) ? decodeBytes(value) : String(value ?? '');
}

/** Owl writes times as RFC 3339 text in UTC (nanoseconds allowed); '' means not yet. */
function parseTime(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
