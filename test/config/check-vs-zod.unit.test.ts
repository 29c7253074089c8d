import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeProblem } from '../../src/config/check.js';
import { checkConfig } from '../../src/config/schema.js';
import { parseDuration } from '../../src/util/duration.js';
import { formatKey } from '../../src/util/key-path.js';

// The REFERENCE: the config's zod schema and the line load.ts made of its first issue, as they were
// before src/config/check.ts replaced them. Kept here only, to show the config is read as it was.
const reference = (() => {
  const duration = z.string().refine((text) => parseDuration(text) !== null, {
    message: 'expected a duration such as 0s, 90s, 30m, 1h or 7d',
  });
  const pathList = z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .transform((value) => (typeof value === 'string' ? [value] : value));
  const watchfire = z.strictObject({ enabled: z.boolean().default(true), root: pathList.optional() });
  const kilo = z.strictObject({
    enabled: z.boolean().default(true),
    apps: z.array(z.enum(['kilo', 'opencode'])).default(['kilo', 'opencode']),
    dataDir: pathList.optional(),
    stateDir: pathList.optional(),
  });
  const owl = z.strictObject({
    enabled: z.boolean().default(true),
    reviewAfter: duration.default('7d'),
    dataDir: pathList.optional(),
    stateDir: pathList.optional(),
  });
  const worktreeSet = z.strictObject({
    name: z.string().min(1),
    roots: z.array(z.string().min(1)).min(1).optional(),
    idleAfter: duration.optional(),
    enabled: z.boolean().optional(),
  });
  const worktrees = z.strictObject({ enabled: z.boolean().default(true), sets: z.array(worktreeSet).default([]) });
  const cline = z.strictObject({
    enabled: z.boolean().default(true),
    userDataDir: pathList.optional(),
    dataDir: pathList.optional(),
  });
  const roo = z.strictObject({
    enabled: z.boolean().default(true),
    extensions: z.array(z.enum(['roo', 'kilo'])).default(['roo', 'kilo']),
    userDataDir: pathList.optional(),
  });
  const listen = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/, {
    message: 'expected HOST:PORT, such as 0.0.0.0:9464',
  });
  const configSchema = z.strictObject({
    homes: z.array(z.string().min(1)).min(1).optional(),
    minAge: duration.default('1h'),
    reportDir: z.string().min(1).optional(),
    processCheck: z.enum(['auto', 'required', 'off']).default('auto'),
    metrics: z
      .strictObject({
        textfile: z.string().min(1).optional(),
        pushgateway: z
          .strictObject({ url: z.string().url(), job: z.string().min(1).default('agent-janitor') })
          .optional(),
      })
      .default({}),
    serve: z
      .strictObject({
        schedule: z.string().min(1).default('*/30 * * * *'),
        listen: listen.default('0.0.0.0:9464'),
      })
      .default({ schedule: '*/30 * * * *', listen: '0.0.0.0:9464' }),
    providers: z
      .strictObject({
        watchfire: watchfire.default({ enabled: true }),
        kilo: kilo.default({ enabled: true, apps: ['kilo', 'opencode'] }),
        owl: owl.default({ enabled: true, reviewAfter: '7d' }),
        worktrees: worktrees.default({ enabled: true, sets: [] }),
        cline: cline.default({ enabled: true }),
        roo: roo.default({ enabled: true, extensions: ['roo', 'kilo'] }),
      })
      .default({
        watchfire: { enabled: true },
        kilo: { enabled: true, apps: ['kilo', 'opencode'] },
        owl: { enabled: true, reviewAfter: '7d' },
        worktrees: { enabled: true, sets: [] },
        cline: { enabled: true },
        roo: { enabled: true, extensions: ['roo', 'kilo'] },
      }),
  });
  function describeIssue(issue: z.core.$ZodIssue | undefined): string {
    if (!issue) return 'invalid config';
    const key = formatKey(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((name) => (key ? `${key}.${name}` : name));
      return `unknown key ${names.join(', ')}`;
    }
    return `${key || '(top level)'}: ${issue.message}`;
  }
  return (raw: unknown) => {
    const parsed = configSchema.safeParse(raw);
    return parsed.success ? { value: parsed.data } : { line: describeIssue(parsed.error.issues[0]) };
  };
})();

function outcome(raw: unknown): { value: unknown } | { line: string } {
  const checked = checkConfig(raw, []);
  return checked.ok ? { value: checked.value } : { line: describeProblem(checked.problem) };
}

// Valid configs: every key may be left out.
const someOf = <T>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }) => fc.record(shape, { requiredKeys: [] });
const text = fc.string({ minLength: 1, maxLength: 6 });
const durationText = fc.constantFrom('0s', '90s', '30m', '1h', '7d', '2w', '1h30m', '250ms');
const pathList = fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 }));
const paths = fc.array(text, { minLength: 1, maxLength: 3 });
const url = fc.oneof(fc.webUrl(), fc.constantFrom(' http://gw:9091 ', 'http://g\tw', 'pushgateway:9091', 'mailto:x'));
const listen = fc.constantFrom('0.0.0.0:9464', '[::1]:80', ':1', 'localhost:0', 'host:99999');

const validConfig = someOf({
  homes: paths,
  minAge: durationText,
  reportDir: text,
  processCheck: fc.constantFrom('auto', 'required', 'off'),
  metrics: someOf({ textfile: text, pushgateway: fc.record({ url, job: text }, { requiredKeys: ['url'] }) }),
  serve: someOf({ schedule: text, listen }),
  providers: someOf({
    watchfire: someOf({ enabled: fc.boolean(), root: pathList }),
    kilo: someOf({
      enabled: fc.boolean(),
      apps: fc.array(fc.constantFrom('kilo', 'opencode'), { maxLength: 3 }),
      dataDir: pathList,
      stateDir: pathList,
    }),
    owl: someOf({ enabled: fc.boolean(), reviewAfter: durationText, dataDir: pathList, stateDir: pathList }),
    worktrees: someOf({
      enabled: fc.boolean(),
      sets: fc.array(
        fc.record(
          { name: text, roots: paths, idleAfter: durationText, enabled: fc.boolean() },
          { requiredKeys: ['name'] },
        ),
        { maxLength: 3 },
      ),
    }),
    cline: someOf({ enabled: fc.boolean(), userDataDir: pathList, dataDir: pathList }),
    roo: someOf({
      enabled: fc.boolean(),
      extensions: fc.array(fc.constantFrom('roo', 'kilo'), { maxLength: 3 }),
      userDataDir: pathList,
    }),
  }),
});

/** Values YAML can give a key: scalars (NaN and Infinity too), lists and mappings. */
const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, '', 'x', 'kilo', '1h', 'http://gw', Number.NaN, Number.POSITIVE_INFINITY),
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('enabled', 'name', 'url', 'zz', 'root'), tie('value'), { maxKeys: 2 }),
  ),
})).value;

type Tree = Record<string, unknown> | unknown[];

/** Every mapping and list in a value, with the keys (or positions) that reach it. */
function containers(value: unknown, at: (string | number)[] = []): Array<{ at: (string | number)[]; node: Tree }> {
  if (typeof value !== 'object' || value === null) return [];
  const node = value as Tree;
  const entries: Array<[string | number, unknown]> = Array.isArray(node) ? [...node.entries()] : Object.entries(node);
  return [{ at, node }, ...entries.flatMap(([key, child]) => containers(child, [...at, key]))];
}

/** A valid config with one thing changed: a value replaced, a key added (maybe unknown) or removed. */
const brokenConfig = fc
  .tuple(validConfig, fc.nat(), fc.constantFrom('replace', 'add', 'remove'), anyValue, fc.string({ maxLength: 8 }))
  .map(([config, pick, change, value, name]) => {
    const copy = structuredClone(config) as Record<string, unknown>;
    const all = containers(copy);
    const { node } = all[pick % all.length] as { node: Tree };
    const keys: (string | number)[] = Array.isArray(node) ? [...node.keys()] : Object.keys(node);
    const key = keys.length > 0 ? (keys[pick % keys.length] as string | number) : undefined;
    if (Array.isArray(node)) {
      if (change === 'add') node.push(value);
      else if (key !== undefined && change === 'remove') node.splice(key as number, 1);
      else if (key !== undefined) node[key as number] = value;
    } else if (change === 'add') node[name] = value;
    else if (key !== undefined && change === 'remove') delete node[key as string];
    else if (key !== undefined) node[key as string] = value;
    return copy;
  });

/** Mappings whose keys are mostly the config's own, holding anything. */
const CONFIG_KEYS = [
  'homes',
  'minAge',
  'reportDir',
  'processCheck',
  'metrics',
  'textfile',
  'pushgateway',
  'url',
  'job',
  'serve',
  'schedule',
  'listen',
  'providers',
  'watchfire',
  'kilo',
  'owl',
  'worktrees',
  'cline',
  'roo',
  'enabled',
  'root',
  'apps',
  'dataDir',
  'stateDir',
  'reviewAfter',
  'sets',
  'name',
  'roots',
  'idleAfter',
  'userDataDir',
  'extensions',
  'other',
];
const looseConfig: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyValue,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...CONFIG_KEYS), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('the config check reads a config as the zod schema it replaced did', () => {
  it('completes a valid config to the same value', () => {
    fc.assert(
      fc.property(validConfig, (config) => {
        expect(outcome(config)).toStrictEqual(reference(config));
      }),
      { numRuns: 1000 },
    );
  });

  it('takes or refuses a config with one thing changed alike, with the same line', () => {
    fc.assert(
      fc.property(brokenConfig, (config) => {
        expect(outcome(config)).toStrictEqual(reference(config));
      }),
      { numRuns: 3000 },
    );
  });

  it('takes or refuses a mapping of config keys holding anything alike, with the same line', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...CONFIG_KEYS), looseConfig, { maxKeys: 4 }), (config) => {
        expect(outcome(config)).toStrictEqual(reference(config));
      }),
      { numRuns: 3000 },
    );
  });
});
