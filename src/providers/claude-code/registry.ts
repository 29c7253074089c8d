import path from 'node:path';
import * as z from 'zod';
import { errorMessage } from '../../model/errors.js';
import { type Dirent, readdirOrEmpty } from '../../safety/fs/list.js';
import { readStateFile } from '../../safety/fs/read.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';

/** A registry record or an adopt file is a few hundred bytes; anything this large is no record. */
const MAX_RECORD_BYTES = 1024 * 1024;
/** Claude Code writes its records whole, but a read that catches one half-written is tried once more. */
const RETRY_AFTER_MS = 200;

/** A Claude Code config folder (`~/.claude`, `$CLAUDE_CONFIG_DIR`) and whose it is. */
export interface ConfigDir {
  dir: string;
  basis: LocationBasis;
}

/** One `sessions/<pid>.json`: a Claude Code process, as it registered itself at start. */
export interface SessionRecord {
  file: string;
  pid: number;
  sessionId: string;
  cwd: string;
  /** Field 22 of its /proc/<pid>/stat when it started (absent in records of older versions). */
  procStart?: string;
  /** `linux:<machine-id>:pid:[<namespace inode>]` of the process (absent in records of older versions). */
  pidDomain?: string;
}

/** One shell of a `jobs/<id>/adopt.json`: a background shell left running on purpose by `claude stop`. */
export interface AdoptedShell {
  file: string;
  pid: number;
  procStart?: string;
  command?: string;
  outputPath: string;
}

/** What the config folders of one uid say. */
export interface ClaudeState {
  records: SessionRecord[];
  shells: AdoptedShell[];
  /** Files or folders that could not be read or are of an unknown shape, each a sentence naming it. */
  problems: string[];
}

const ticks = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative().transform(String)]);

const recordSchema = z.looseObject({
  pid: z.number().int().positive(),
  sessionId: z.string().min(1),
  cwd: z.string().min(1),
  procStart: ticks.optional(),
  pidDomain: z.string().min(1).optional(),
});

const adoptSchema = z.looseObject({
  shells: z
    .array(
      z.looseObject({
        pid: z.number().int().positive(),
        procStart: ticks.optional(),
        startTimeTicks: ticks.optional(),
        command: z.string().optional(),
        outputPath: z.string().min(1),
      }),
    )
    .default(() => []),
});

/**
 * The registry records (`sessions/<pid>.json`) and adopted shells (`jobs/*\/adopt.json`) of every
 * config folder given, each folder and file reached only through links its owner's (rule 20). A
 * folder that is not there says nothing; one that cannot be reached (a link to a disk not mounted
 * here, a folder the pass may not list, another user's) is unknown, never empty: a problem, as is
 * a file of an unknown shape (the uid's items then fail closed, rule 27).
 */
export async function readClaudeState(dirs: readonly ConfigDir[]): Promise<ClaudeState> {
  const state: ClaudeState = { records: [], shells: [], problems: [] };
  for (const { dir, basis } of dirs) {
    const located = locate(dir, basis);
    if (located.state === 'absent') continue;
    if (located.state !== 'found') {
      state.problems.push(`the registry ${path.join(dir, 'sessions')} cannot be read: ${located.detail}`);
      continue;
    }
    const sessions = await entriesOf(
      path.join(dir, 'sessions'),
      basis,
      (entry) => /^\d+\.json$/.test(entry.name),
      state,
    );
    for (const file of sessions) {
      if (!reachable(file, basis, state)) continue;
      const record = await readJson(file, recordSchema, state);
      if (record) state.records.push({ file, ...pickRecord(record) });
    }
    const jobs = path.join(dir, 'jobs');
    for (const job of await entriesOf(jobs, basis, (entry) => entry.isDirectory(), state)) {
      const file = path.join(job, 'adopt.json');
      if (!reachable(file, basis, state)) continue;
      const adopt = await readJson(file, adoptSchema, state);
      for (const shell of adopt?.shells ?? [])
        state.shells.push({
          file,
          pid: shell.pid,
          outputPath: shell.outputPath,
          ...((shell.procStart ?? shell.startTimeTicks) ? { procStart: shell.procStart ?? shell.startTimeTicks } : {}),
          ...(shell.command ? { command: shell.command } : {}),
        });
    }
  }
  return state;
}

/** Whether a file is there and reached only through its owner's links; one that is not its owner's is a problem. */
function reachable(file: string, basis: LocationBasis, state: ClaudeState): boolean {
  const located = locate(file, basis, 'file');
  if (located.state === 'found') return true;
  if (located.state !== 'absent') state.problems.push(located.detail);
  return false;
}

function pickRecord(record: z.output<typeof recordSchema>): Omit<SessionRecord, 'file'> {
  return {
    pid: record.pid,
    sessionId: record.sessionId,
    cwd: record.cwd,
    ...(record.procStart ? { procStart: record.procStart } : {}),
    ...(record.pidDomain ? { pidDomain: record.pidDomain } : {}),
  };
}

/**
 * The entries of a folder that `keep` takes, each as a path, once the folder is found its owner's;
 * a problem where it is not, or where it cannot be listed.
 */
async function entriesOf(
  dir: string,
  basis: LocationBasis,
  keep: (entry: Dirent) => boolean,
  state: ClaudeState,
): Promise<string[]> {
  const located = locate(dir, basis);
  if (located.state === 'absent') return [];
  if (located.state !== 'found') {
    state.problems.push(`${dir} cannot be read: ${located.detail}`);
    return [];
  }
  try {
    return (await readdirOrEmpty(dir))
      .filter(keep)
      .map((entry) => path.join(dir, entry.name))
      .sort();
  } catch (err) {
    state.problems.push(`${dir} cannot be listed: ${errorMessage(err)}`);
    return [];
  }
}

/**
 * A state file read and checked, or null: gone since it was listed (a session that ended), or a
 * problem (unreadable, not JSON, of an unknown shape) that names the file.
 */
async function readJson<T extends z.ZodType>(file: string, schema: T, state: ClaudeState): Promise<z.output<T> | null> {
  for (let attempt = 0; ; attempt += 1) {
    let problem: string;
    try {
      const read = await readStateFile(file, MAX_RECORD_BYTES);
      if (!read) return null;
      const checked = schema.safeParse(JSON.parse(read.text));
      if (checked.success) return checked.data;
      problem = `${file} is not a record Claude Code writes: ${checked.error.issues[0]?.path.join('.') || 'the file'}: ${checked.error.issues[0]?.message ?? 'unknown shape'}`;
    } catch (err) {
      problem = `${file} cannot be read: ${errorMessage(err)}`;
    }
    if (attempt > 0) {
      state.problems.push(problem);
      return null;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
  }
}
