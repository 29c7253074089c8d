import path from 'node:path';
import { parseDocument } from 'yaml';
import { errorMessage } from '../../core/errors.js';
import { readSettled } from './stable-read.js';

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
function parseMapping(text: string, file: string): Record<string, unknown> {
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) throw new WatchfireStateError(`${file}: not valid YAML: ${problem.message.split('\n')[0]}`);
  const value: unknown = doc.toJS();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WatchfireStateError(`${file}: expected a YAML mapping with version and ${path.basename(file, '.yaml')}`);
  }
  return value as Record<string, unknown>;
}

function requireVersion1(doc: Record<string, unknown>, file: string): void {
  if (doc.version !== '1') {
    throw new WatchfireStateError(
      `${file}: version: expected 1, found ${JSON.stringify(doc.version ?? null)} (unknown schema)`,
    );
  }
}

function listOf(doc: Record<string, unknown>, key: string, file: string): Record<string, unknown>[] {
  const list = doc[key];
  if (!Array.isArray(list)) throw new WatchfireStateError(`${file}: ${key}: expected a list`);
  return list.map((entry, index) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new WatchfireStateError(`${file}: ${key}[${index}]: expected a mapping`);
    }
    return entry as Record<string, unknown>;
  });
}

function requireString(entry: Record<string, unknown>, key: string, where: string, allowEmpty: boolean): string {
  const value = entry[key];
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    throw new WatchfireStateError(`${where}.${key}: expected a ${allowEmpty ? '' : 'non-empty '}string`);
  }
  return value;
}

/** `version: 1`, then `projects:` a list of `{project_id, name, path, position}`. */
export function parseProjects(text: string, file: string): RegisteredProject[] {
  const doc = parseMapping(text, file);
  requireVersion1(doc, file);
  const entries = listOf(doc, 'projects', file);
  // Watchfire rewrites this file in place, so a crash can leave it cut short yet still valid YAML,
  // and the projects cut away would look deleted. A cut inside a line or an entry shows as a
  // missing final newline or a missing key: fail closed on either.
  if (entries.length > 0 && !text.endsWith('\n')) {
    throw new WatchfireStateError(`${file}: does not end with a newline, so it may have been cut short while written`);
  }
  return entries.map((entry, index) => {
    const where = `${file}: projects[${index}]`;
    const projectId = requireString(entry, 'project_id', where, false);
    // A project with an empty name has the empty slug; that is still a name, so it is allowed.
    const name = requireString(entry, 'name', where, true);
    requireString(entry, 'path', where, false);
    if ('position' in entry && !/^-?\d+$/.test(String(entry.position))) {
      throw new WatchfireStateError(`${where}.position: expected a whole number`);
    }
    return { projectId, name };
  });
}

/** `version: 1`, then `agents:` a list of `{project_id, project_name, project_path, mode, …}`. */
export function parseAgents(text: string, file: string): RunningAgent[] {
  const doc = parseMapping(text, file);
  requireVersion1(doc, file);
  if (doc.agents === undefined || doc.agents === '') return [];
  return listOf(doc, 'agents', file).map((entry, index) => {
    const where = `${file}: agents[${index}]`;
    return {
      projectId: requireString(entry, 'project_id', where, false),
      projectName: requireString(entry, 'project_name', where, true),
      mode: typeof entry.mode === 'string' ? entry.mode : '',
    };
  });
}

/** The `pid` of `daemon.yaml`; a file without a valid one is an error (its liveness is then unknown). */
export function parseDaemonPid(text: string, file: string): number {
  const doc = parseMapping(text, file);
  const pid = doc.pid;
  if (typeof pid !== 'string' || !/^[1-9]\d{0,9}$/.test(pid)) {
    throw new WatchfireStateError(`${file}: pid: expected a process id, found ${JSON.stringify(pid ?? null)}`);
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
