import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { z } from 'zod';
import { parseAgents, parseDaemonPid, parseMapping, parseProjects } from '../../src/providers/watchfire/state.js';
import { formatKey } from '../../src/util/key-path.js';

// The REFERENCE: Watchfire's state files as zod read them before state.ts checked them by hand,
// with the line issueLine() made of zod's first issue. Kept here only, to show they read the same.
const reference = (() => {
  // The YAML is read by the module's own parseMapping, as it was before: only the checks changed.
  const mapping = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
    z.looseObject(shape, { error: 'expected a mapping' });
  const list = <Item extends z.ZodType>(item: Item) => z.array(item, { error: 'expected a list' });
  const nonEmptyString = z.string({ error: 'expected a non-empty string' }).min(1, 'expected a non-empty string');
  const anyString = z.string({ error: 'expected a string' });
  const version1 = z.literal('1', {
    error: (issue) => `expected 1, found ${JSON.stringify(issue.input ?? null)} (unknown schema)`,
  });
  const projectsFile = mapping({ version: version1, projects: list(z.unknown()) });
  const registeredProject = mapping({
    project_id: nonEmptyString,
    name: anyString,
    path: nonEmptyString,
    position: z
      .string({ error: 'expected a whole number' })
      .regex(/^-?\d+$/, 'expected a whole number')
      .optional(),
  });
  const agentsFile = mapping({
    version: version1,
    agents: z.union([z.undefined(), z.literal(''), list(z.unknown())], { error: 'expected a list' }),
  });
  const runningAgent = mapping({
    project_id: nonEmptyString,
    project_name: anyString,
    mode: z.unknown().transform((mode) => (typeof mode === 'string' ? mode : '')),
  });
  const daemonFile = mapping({
    pid: z.custom<string>((pid) => typeof pid === 'string' && /^[1-9]\d{0,9}$/.test(pid), {
      error: (issue) => `expected a process id, found ${JSON.stringify(issue.input ?? null)}`,
    }),
  });
  function validated<Schema extends z.ZodType>(schema: Schema, value: unknown, file: string): z.output<Schema> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    if (!issue) throw new Error(`${file}: invalid`);
    throw new Error(`${file}: ${formatKey(issue.path) || '(top level)'}: ${issue.message}`);
  }
  return {
    parseProjects(text: string, file: string) {
      const { projects } = validated(projectsFile, parseMapping(text, file), file);
      if (projects.length > 0 && !text.endsWith('\n')) {
        throw new Error(`${file}: does not end with a newline, so it may have been cut short while written`);
      }
      const entries = validated(mapping({ projects: list(registeredProject) }), { projects }, file).projects;
      return entries.map((entry) => ({ projectId: entry.project_id, name: entry.name }));
    },
    parseAgents(text: string, file: string) {
      const { agents } = validated(agentsFile, parseMapping(text, file), file);
      if (agents === undefined || agents === '') return [];
      const entries = validated(mapping({ agents: list(runningAgent) }), { agents }, file).agents;
      return entries.map((entry) => ({
        projectId: entry.project_id,
        projectName: entry.project_name,
        mode: entry.mode,
      }));
    },
    parseDaemonPid(text: string, file: string) {
      return Number(validated(daemonFile, parseMapping(text, file), file).pid);
    },
  };
})();

/** What a parse answers, or the message it throws. */
function outcome(parse: () => unknown): unknown {
  try {
    return { value: parse() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Values as YAML writes them: read back through the failsafe schema every scalar is a string. */
const scalar = fc.oneof(
  fc.constantFrom('', '1', '0', '-1', '42', '4242', '01', '1x', '-', ' 1', '1.5', 'x', 'null', '~', 'true'),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 5_000_000_000 }),
  fc.constantFrom(null, true, 1.5),
);
const anyValue = fc.oneof(
  { weight: 3, arbitrary: scalar },
  fc.array(scalar, { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'name', 'project_id'), scalar, { maxKeys: 2 }),
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
/** A key that is usually a good value, sometimes anything, sometimes left out (undefined). */
const field = (good: fc.Arbitrary<unknown>) => fc.oneof({ weight: 4, arbitrary: good }, anyValue);
const optionalFields = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) =>
  fc.record(shape, { requiredKeys: [] });

const project = fc.oneof(
  {
    weight: 6,
    arbitrary: optionalFields({
      project_id: field(fc.constantFrom('p1', 'p2', '0b7e5d1c')),
      name: field(fc.constantFrom('My App', '', '1e3', 'no')),
      path: field(fc.constantFrom('/p/a', '/p/b')),
      position: field(fc.constantFrom('0', '1', '-3', 12)),
      extra: field(fc.constant('kept')),
    }),
  },
  anyValue,
);
const agent = fc.oneof(
  {
    weight: 6,
    arbitrary: optionalFields({
      project_id: field(fc.constantFrom('p1', 'p2')),
      project_name: field(fc.constantFrom('My App', '')),
      project_path: field(fc.constant('/src/a')),
      mode: field(fc.constantFrom('task', 'chat', '')),
    }),
  },
  anyValue,
);
const version = field(fc.constant('1'));

/** The file's text: as YAML writes the value, sometimes cut short, sometimes any text at all. */
const text = (top: fc.Arbitrary<unknown>) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.tuple(top, fc.boolean()).map(([value, whole]) => {
        const written = stringify(value);
        return whole ? written : written.trimEnd();
      }),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: anyValue.map((value) => stringify(value)) },
  );

const RUNS = { numRuns: 2_000 };

describe('the Watchfire state files are read as the zod schemas they replaced read them', () => {
  it('projects.yaml', () => {
    const file = '/h/.watchfire/projects.yaml';
    const top = optionalFields({ version, projects: field(fc.array(project, { maxLength: 4 })), other: anyValue });
    fc.assert(
      fc.property(text(top), (written) => {
        expect(outcome(() => parseProjects(written, file))).toStrictEqual(
          outcome(() => reference.parseProjects(written, file)),
        );
      }),
      RUNS,
    );
  });

  it('agents.yaml', () => {
    const file = '/h/.watchfire/agents.yaml';
    const agents = fc.oneof({ weight: 4, arbitrary: fc.array(agent, { maxLength: 4 }) }, fc.constant(''), anyValue);
    const top = optionalFields({ version, agents, other: anyValue });
    fc.assert(
      fc.property(text(top), (written) => {
        expect(outcome(() => parseAgents(written, file))).toStrictEqual(
          outcome(() => reference.parseAgents(written, file)),
        );
      }),
      RUNS,
    );
  });

  it('daemon.yaml', () => {
    const file = '/h/.watchfire/daemon.yaml';
    const pid = field(fc.oneof(fc.integer({ min: -10, max: 99_999_999_999 }).map(String), fc.constantFrom('01', '1')));
    const top = optionalFields({ version, pid, host: anyValue });
    fc.assert(
      fc.property(text(top), (written) => {
        expect(outcome(() => parseDaemonPid(written, file))).toStrictEqual(
          outcome(() => reference.parseDaemonPid(written, file)),
        );
      }),
      RUNS,
    );
  });
});
