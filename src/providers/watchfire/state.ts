import path from 'node:path';
import { parseDocument } from 'yaml';
import { errorMessage } from '../../core/errors.js';
import { formatKey } from '../../util/key-path.js';
import { readSettled } from './stable-read.js';
import { isPlainObject } from '../../util/plain-object.js';

/** One entry of `projects.yaml`. */
export interface RegisteredProject {
  projectId: string;
  name: string;
}

/** One entry of `agents.yaml`: a session the daemon had running when it last wrote the file. */
export interface RunningAgent {
  projectId: string;
  projectName: string;
  mode: string;
}

class WatchfireStateError extends Error {
  override name = 'WatchfireStateError';
}

/**
 * Every scalar is read as a string (the YAML failsafe schema), so a project named `1e3` or `no`
 * keeps its exact name, and with it its slug.
 */
export function parseMapping(text: string, file: string): Record<string, unknown> {
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) throw new WatchfireStateError(`${file}: not valid YAML: ${problem.message.split('\n')[0]}`);
  const value: unknown = doc.toJS();
  if (!isPlainObject(value)) {
    throw new WatchfireStateError(`${file}: expected a YAML mapping with version and ${path.basename(file, '.yaml')}`);
  }
  return value;
}

// The files' checks, written out: each refuses with the line zod gave for its first issue (keys in
// the order below, list items in order), so messages and key paths read as they did. Keys not
// named here are Watchfire's own and are left alone.

/** Where a value sits in the file: the keys and list positions that lead to it. */
type Keys = readonly (string | number)[];

function refuse(file: string, keys: Keys, message: string): never {
  throw new WatchfireStateError(`${file}: ${formatKey(keys)}: ${message}`);
}

/** What zod 4.6 says of a key left out whose schema is not `.optional()` yet takes any value. */
const ABSENT = 'Invalid input: expected nonoptional, received undefined';

function mapping(value: unknown, file: string, keys: Keys): Record<string, unknown> {
  if (!isPlainObject(value)) refuse(file, keys, 'expected a mapping');
  return value;
}

function list(value: unknown, file: string, keys: Keys): unknown[] {
  if (!Array.isArray(value)) refuse(file, keys, 'expected a list');
  return value;
}

function nonEmptyString(value: unknown, file: string, keys: Keys): string {
  if (typeof value !== 'string' || value === '') refuse(file, keys, 'expected a non-empty string');
  return value;
}

function anyString(value: unknown, file: string, keys: Keys): string {
  if (typeof value !== 'string') refuse(file, keys, 'expected a string');
  return value;
}

/** Every file says `version: 1`; another version is a schema this tool does not know. */
function version1(top: Record<string, unknown>, file: string): void {
  const version = top.version;
  if (version !== '1')
    refuse(file, ['version'], `expected 1, found ${JSON.stringify(version ?? null)} (unknown schema)`);
}

/** `version: 1`, then `projects:` a list of `{project_id, name, path, position}`. */
export function parseProjects(text: string, file: string): RegisteredProject[] {
  const top = parseMapping(text, file);
  // The version and the list first, so a file cut short is told from a bad entry.
  version1(top, file);
  const projects = list(top.projects, file, ['projects']);
  // Watchfire rewrites this file in place, so a crash can leave it cut short yet still valid YAML,
  // and the projects cut away would look deleted. A cut inside a line or an entry shows as a
  // missing final newline or a missing key: fail closed on either.
  if (projects.length > 0 && !text.endsWith('\n')) {
    throw new WatchfireStateError(`${file}: does not end with a newline, so it may have been cut short while written`);
  }
  return projects.map((item, index) => {
    const at = ['projects', index];
    const entry = mapping(item, file, at);
    const projectId = nonEmptyString(entry.project_id, file, [...at, 'project_id']);
    // A project with an empty name has the empty slug; that is still a name, so it is allowed.
    const name = anyString(entry.name, file, [...at, 'name']);
    nonEmptyString(entry.path, file, [...at, 'path']);
    const position = entry.position;
    if (position !== undefined && !(typeof position === 'string' && /^-?\d+$/.test(position))) {
      refuse(file, [...at, 'position'], 'expected a whole number');
    }
    return { projectId, name };
  });
}

/** `version: 1`, then `agents:` a list of `{project_id, project_name, project_path, mode, …}`. */
export function parseAgents(text: string, file: string): RunningAgent[] {
  const top = parseMapping(text, file);
  version1(top, file);
  // An empty value says no session runs. A file without the key is refused, as the zod schema this
  // replaced refused it (zod 4.6 takes no absent key whose schema is not `.optional()`).
  if (!('agents' in top)) refuse(file, ['agents'], ABSENT);
  if (top.agents === undefined || top.agents === '') return [];
  return list(top.agents, file, ['agents']).map((item, index) => {
    const at = ['agents', index];
    const entry = mapping(item, file, at);
    const projectId = nonEmptyString(entry.project_id, file, [...at, 'project_id']);
    const projectName = anyString(entry.project_name, file, [...at, 'project_name']);
    // Any mode is read (one that is not text as ''), but the key must be there, as zod had it.
    if (!('mode' in entry)) refuse(file, [...at, 'mode'], ABSENT);
    return { projectId, projectName, mode: typeof entry.mode === 'string' ? entry.mode : '' };
  });
}

/** The `pid` of `daemon.yaml`; a file without a valid one is an error (its liveness is then unknown). */
export function parseDaemonPid(text: string, file: string): number {
  const { pid } = parseMapping(text, file);
  if (typeof pid !== 'string' || !/^[1-9]\d{0,9}$/.test(pid)) {
    refuse(file, ['pid'], `expected a process id, found ${JSON.stringify(pid ?? null)}`);
  }
  return Number(pid);
}

/** What `projects.yaml` says, or why it cannot be read (missing is a reason too: fail closed). */
export type ProjectsRead = { ok: true; projects: RegisteredProject[] } | { ok: false; error: string };

export async function readProjects(file: string): Promise<ProjectsRead> {
  try {
    const text = await readSettled(file);
    if (text === null) return { ok: false, error: `${file} does not exist, so no home can be traced to its project` };
    return { ok: true, projects: parseProjects(text, file) };
  } catch (err) {
    return {
      ok: false,
      error: err instanceof WatchfireStateError ? err.message : `${file}: cannot be read: ${errorMessage(err)}`,
    };
  }
}

/** `agents.yaml`: absent after a clean shutdown (null), present while sessions run or after a crash. */
export type AgentsRead = { ok: true; agents: RunningAgent[] | null } | { ok: false; error: string };

export async function readAgents(file: string): Promise<AgentsRead> {
  try {
    const text = await readSettled(file);
    return { ok: true, agents: text === null ? null : parseAgents(text, file) };
  } catch (err) {
    return {
      ok: false,
      error: err instanceof WatchfireStateError ? err.message : `${file}: cannot be read: ${errorMessage(err)}`,
    };
  }
}
