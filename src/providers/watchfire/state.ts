import path from 'node:path';
import { parseDocument } from 'yaml';
import { errorMessage } from '../../model/errors.js';
import * as z from 'zod';
import { readSettled } from './stable-read.js';
import { isPlainObject } from '../../util/plain-object.js';
import { describeIssue, parsedOrThrow } from '../../util/zod-issue.js';

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
  if (!isPlainObject(value)) {
    throw new WatchfireStateError(`${file}: expected a YAML mapping with version and ${path.basename(file, '.yaml')}`);
  }
  return value;
}

const mapping = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
  z.looseObject(shape, { error: 'expected a mapping' });
const list = <Item extends z.ZodType>(item: Item) => z.array(item, { error: 'expected a list' });

const nonEmptyString = z.string({ error: 'expected a non-empty string' }).min(1, 'expected a non-empty string');
const anyString = z.string({ error: 'expected a string' });
/** Every file says `version: 1`; another version is a schema this tool does not know. */
const version1 = z.literal('1', {
  error: (issue) => `expected 1, found ${JSON.stringify(issue.input ?? null)} (unknown schema)`,
});

// Keys not named here are Watchfire's own and are left alone (loose objects).

/** `projects.yaml`: the version and the list first, so a file cut short is told from a bad entry. */
const projectsFile = mapping({ version: version1, projects: list(z.unknown()) });
const projectEntries = mapping({
  projects: list(
    mapping({
      project_id: nonEmptyString,
      // A project with an empty name has the empty slug; that is still a name, so it is allowed.
      name: anyString,
      path: nonEmptyString,
      position: z
        .string({ error: 'expected a whole number' })
        .regex(/^-?\d+$/, 'expected a whole number')
        .optional(),
    }),
  ),
});

/**
 * `agents.yaml`: an empty value says no session runs. The key itself must be there, and so must
 * each agent's `mode` (of any value): zod takes no absent key whose schema is not `.optional()`.
 */
const agentsFile = mapping({
  version: version1,
  agents: z.union([z.undefined(), z.literal(''), list(z.unknown())], { error: 'expected a list' }),
});
const agentEntries = mapping({
  agents: list(
    mapping({
      project_id: nonEmptyString,
      project_name: anyString,
      mode: z.unknown().transform((mode) => (typeof mode === 'string' ? mode : '')),
    }),
  ),
});

const daemonFile = mapping({
  pid: z.custom<string>((pid) => typeof pid === 'string' && /^[1-9]\d{0,9}$/.test(pid), {
    error: (issue) => `expected a process id, found ${JSON.stringify(issue.input ?? null)}`,
  }),
});

/** `value` as `schema` reads it, or a WatchfireStateError of one line naming the file and the key. */
function validated<Schema extends z.ZodType>(schema: Schema, value: unknown, file: string): z.output<Schema> {
  return parsedOrThrow(schema, value, (error) => new WatchfireStateError(`${file}: ${describeIssue(error)}`));
}

/** `version: 1`, then `projects:` a list of `{project_id, name, path, position}`. */
export function parseProjects(text: string, file: string): RegisteredProject[] {
  const { projects } = validated(projectsFile, parseMapping(text, file), file);
  // Watchfire rewrites this file in place, so a crash can leave it cut short yet still valid YAML,
  // and the projects cut away would look deleted. A cut inside a line or an entry shows as a
  // missing final newline or a missing key: fail closed on either.
  if (projects.length > 0 && !text.endsWith('\n')) {
    throw new WatchfireStateError(`${file}: does not end with a newline, so it may have been cut short while written`);
  }
  return validated(projectEntries, { projects }, file).projects.map((entry) => ({
    projectId: entry.project_id,
    name: entry.name,
  }));
}

/** `version: 1`, then `agents:` a list of `{project_id, project_name, project_path, mode, …}`. */
export function parseAgents(text: string, file: string): RunningAgent[] {
  const { agents } = validated(agentsFile, parseMapping(text, file), file);
  if (agents === undefined || agents === '') return [];
  return validated(agentEntries, { agents }, file).agents.map((entry) => ({
    projectId: entry.project_id,
    projectName: entry.project_name,
    mode: entry.mode,
  }));
}

/** The `pid` of `daemon.yaml`; a file without a valid one is an error (its liveness is then unknown). */
export function parseDaemonPid(text: string, file: string): number {
  return Number(validated(daemonFile, parseMapping(text, file), file).pid);
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
