import path from 'node:path';
import type Database from 'better-sqlite3';
import { SourceOfTruthError } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readOwnerDatabase } from '../../util/sqlite.js';

/** What Kilo's databases say: each project's main repository, and every directory they name. */
export interface KiloRecords {
  /** The databases read (absolute paths). */
  files: string[];
  /** project id → its `project.worktree` values (one, unless databases disagree). */
  projects: Map<string, Set<string>>;
  /** Every directory the rows name: main repositories, worktrees, session directories. */
  directories: Set<string>;
  /** The id of every `session` row: a session diff whose id none has belongs to a deleted session. */
  sessions: Set<string>;
  /** The databases without a `session(id)` table, whose sessions cannot be known. */
  sessionless: string[];
}

// kilo.db (latest, beta and prod channels), kilo-<channel>.db, and opencode's opencode.db.
const DATABASE_NAME = /^(kilo|opencode)(-[A-Za-z0-9._-]+)?\.db$/;

/** How long a read waits for a writer that holds the database locked (rollback-journal mode). */
const BUSY_TIMEOUT_MS = 3_000;

/** The databases in a data folder, plus one named by the environment; missing ones are no error. */
export async function databaseFiles(dataDir: string, extra?: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdirOrEmpty(dataDir)) {
    if ((entry.isFile() || entry.isSymbolicLink()) && DATABASE_NAME.test(entry.name))
      found.push(path.join(dataDir, entry.name));
  }
  if (extra && !found.includes(path.resolve(extra)) && (await lstatOrNull(extra))) found.push(path.resolve(extra));
  return found.sort();
}

/**
 * Reads the project, project_directory and session rows of every database, read-only: never a
 * write, never a lock that a Kilo server would wait on (WAL readers do not block its writer).
 * Throws a SourceOfTruthError naming the file when one cannot be read or has an unknown schema.
 */
export function readKiloRecords(files: readonly string[]): KiloRecords {
  const records: KiloRecords = {
    files: [...files],
    projects: new Map(),
    directories: new Set(),
    sessions: new Set(),
    sessionless: [],
  };
  for (const file of files) readOne(file, records);
  return records;
}

function readOne(file: string, records: KiloRecords): void {
  // One read transaction: the three tables are read from the same snapshot of the database.
  readOwnerDatabase(file, BUSY_TIMEOUT_MS, (db) => {
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
        (row) => row.name,
      ),
    );
    const project = columns(db, tables, 'project');
    if (!project?.has('id') || !project.has('worktree')) {
      throw new SourceOfTruthError(`${file}: unknown schema: no table project with the columns id and worktree`);
    }
    const sandboxes = project.has('sandboxes') ? ', sandboxes' : '';
    for (const row of db.prepare(`SELECT id, worktree${sandboxes} FROM project`).all() as ProjectRow[]) {
      addProject(records, row);
    }
    for (const table of ['project_directory', 'session']) {
      if (columns(db, tables, table)?.has('directory')) {
        for (const row of db.prepare(`SELECT directory FROM ${table}`).all() as Array<{ directory: unknown }>) {
          addDirectory(records, row.directory);
        }
      }
    }
    if (columns(db, tables, 'session')?.has('id')) {
      for (const row of db.prepare('SELECT id FROM session').all() as Array<{ id: unknown }>)
        if (typeof row.id === 'string') records.sessions.add(row.id);
    } else records.sessionless.push(file);
  });
}

interface ProjectRow {
  id: unknown;
  worktree: unknown;
  sandboxes?: unknown;
}

function columns(db: Database.Database, tables: Set<string>, table: string): Set<string> | null {
  if (!tables.has(table)) return null;
  const info = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>;
  return new Set(info.map((column) => column.name));
}

function addProject(records: KiloRecords, row: ProjectRow): void {
  if (typeof row.id !== 'string' || typeof row.worktree !== 'string') return;
  // `global` (folders outside git) has the worktree "/": it owns no repository.
  if (row.worktree !== '/' && path.isAbsolute(row.worktree)) {
    const known = records.projects.get(row.id) ?? new Set<string>();
    known.add(path.resolve(row.worktree));
    records.projects.set(row.id, known);
    addDirectory(records, row.worktree);
  }
  if (typeof row.sandboxes === 'string') {
    try {
      const list: unknown = JSON.parse(row.sandboxes);
      if (Array.isArray(list)) for (const entry of list) addDirectory(records, entry);
    } catch {
      // A sandboxes value that is no JSON list names no directory; the rest of the row stands.
    }
  }
}

function addDirectory(records: KiloRecords, value: unknown): void {
  if (typeof value === 'string' && value !== '/' && path.isAbsolute(value))
    records.directories.add(path.resolve(value));
}
