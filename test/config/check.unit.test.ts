import { describe, expect, it } from 'vitest';
import { describeProblem } from '../../src/config/check.js';
import { checkConfig } from '../../src/config/schema.js';

/** What a config file gets: its value with every default, or the one line after the file's name. */
function outcome(raw: unknown): { value: unknown } | { line: string } {
  const checked = checkConfig(raw, []);
  return checked.ok ? { value: checked.value } : { line: describeProblem(checked.problem) };
}

const lineFor = (raw: unknown): string => {
  const result = outcome(raw);
  if (!('line' in result)) throw new Error(`accepted: ${JSON.stringify(result.value)}`);
  return result.line;
};

const accepted = (raw: unknown): unknown => {
  const result = outcome(raw);
  if ('line' in result) throw new Error(`refused: ${result.line}`);
  return result.value;
};

const DEFAULTS = {
  minAge: '1h',
  processCheck: 'auto',
  metrics: {},
  serve: { schedule: '*/30 * * * *', listen: '0.0.0.0:9464' },
  providers: {
    watchfire: { enabled: true },
    kilo: { enabled: true, apps: ['kilo', 'opencode'] },
    owl: { enabled: true, reviewAfter: '7d' },
    worktrees: { enabled: true, sets: [] },
    cline: { enabled: true },
    roo: { enabled: true, extensions: ['roo', 'kilo'] },
  },
};

const SET = (set: Record<string, unknown>) => ({ providers: { worktrees: { sets: [set] } } });
const STRING_TOO_SHORT = 'Too small: expected string to have >=1 characters';
const LIST_TOO_SHORT = 'Too small: expected array to have >=1 items';

describe('the config check: defaults', () => {
  it('fills in every default of an empty file, and leaves out the keys without one', () => {
    const value = accepted({});
    expect(value).toStrictEqual(DEFAULTS);
    expect(Object.keys(value as object)).not.toContain('homes');
    expect(Object.keys(value as object)).not.toContain('reportDir');
  });

  it('gives an empty section the same defaults as a missing one', () => {
    const empty = { metrics: {}, serve: {}, providers: {} };
    expect(accepted(empty)).toStrictEqual(DEFAULTS);
    const emptyProviders = { watchfire: {}, kilo: {}, owl: {}, worktrees: {}, cline: {}, roo: {} };
    expect(accepted({ providers: emptyProviders })).toStrictEqual(DEFAULTS);
  });

  it('defaults the pushgateway job, and nothing of a worktree set but what it names', () => {
    expect(accepted({ metrics: { pushgateway: { url: 'http://gw:9091' } } })).toMatchObject({
      metrics: { pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } },
    });
    expect(accepted(SET({ name: 'codex' }))).toMatchObject({
      providers: { worktrees: { enabled: true, sets: [{ name: 'codex' }] } },
    });
    const { sets } = (accepted(SET({ name: 'codex' })) as { providers: { worktrees: { sets: object[] } } }).providers
      .worktrees;
    expect(sets.map((set) => Object.keys(set))).toEqual([['name']]);
  });

  it('keeps what the file gives, a single path made a list', () => {
    const given = {
      homes: ['/home/*', '/root'],
      minAge: '1h30m',
      reportDir: '/var/lib/agent-janitor',
      processCheck: 'off',
      metrics: { textfile: '/tmp/m.prom', pushgateway: { url: 'https://gw', job: 'mine' } },
      serve: { schedule: '* * * * *', listen: '[::1]:80' },
      providers: {
        watchfire: { enabled: false, root: '/w' },
        kilo: { apps: [], dataDir: ['/a', '/b'], stateDir: '/s' },
        owl: { reviewAfter: '3d', dataDir: '/o' },
        worktrees: { enabled: false, sets: [{ name: 'x', roots: ['/x/*'], idleAfter: '2d', enabled: false }] },
        cline: { userDataDir: '/u', dataDir: ['/d'] },
        roo: { extensions: ['kilo'], userDataDir: ['/u'] },
      },
    };
    expect(accepted(given)).toStrictEqual({
      ...given,
      providers: {
        watchfire: { enabled: false, root: ['/w'] },
        kilo: { enabled: true, apps: [], dataDir: ['/a', '/b'], stateDir: ['/s'] },
        owl: { enabled: true, reviewAfter: '3d', dataDir: ['/o'] },
        worktrees: given.providers.worktrees,
        cline: { enabled: true, userDataDir: ['/u'], dataDir: ['/d'] },
        roo: { enabled: true, extensions: ['kilo'], userDataDir: ['/u'] },
      },
    });
  });

  it('makes every default afresh: changing one answer does not change the next', () => {
    const first = accepted({}) as typeof DEFAULTS;
    first.providers.kilo.apps.push('changed' as 'kilo');
    (first.providers.worktrees.sets as unknown[]).push({ name: 'changed' });
    expect(accepted({})).toStrictEqual(DEFAULTS);
  });
});

describe('the config check: one line naming the key', () => {
  const wrongTypes: Array<[string, unknown, string]> = [
    ['homes', { homes: '/home/a' }, 'homes: Invalid input: expected array, received string'],
    ['homes[1]', { homes: ['/a', 1] }, 'homes[1]: Invalid input: expected string, received number'],
    ['minAge', { minAge: 3 }, 'minAge: Invalid input: expected string, received number'],
    ['reportDir', { reportDir: true }, 'reportDir: Invalid input: expected string, received boolean'],
    ['metrics', { metrics: [] }, 'metrics: Invalid input: expected object, received array'],
    [
      'metrics.textfile',
      { metrics: { textfile: {} } },
      'metrics.textfile: Invalid input: expected string, received object',
    ],
    [
      'metrics.pushgateway',
      { metrics: { pushgateway: 'http://gw' } },
      'metrics.pushgateway: Invalid input: expected object, received string',
    ],
    [
      'metrics.pushgateway.url',
      { metrics: { pushgateway: { url: 9091 } } },
      'metrics.pushgateway.url: Invalid input: expected string, received number',
    ],
    [
      'a missing metrics.pushgateway.url',
      { metrics: { pushgateway: { job: 'j' } } },
      'metrics.pushgateway.url: Invalid input: expected string, received undefined',
    ],
    [
      'metrics.pushgateway.job',
      { metrics: { pushgateway: { url: 'http://gw', job: 1 } } },
      'metrics.pushgateway.job: Invalid input: expected string, received number',
    ],
    ['serve', { serve: 'always' }, 'serve: Invalid input: expected object, received string'],
    ['serve.schedule', { serve: { schedule: 5 } }, 'serve.schedule: Invalid input: expected string, received number'],
    ['serve.listen', { serve: { listen: 9464 } }, 'serve.listen: Invalid input: expected string, received number'],
    ['providers', { providers: [] }, 'providers: Invalid input: expected object, received array'],
    [
      'providers.watchfire',
      { providers: { watchfire: true } },
      'providers.watchfire: Invalid input: expected object, received boolean',
    ],
    [
      'providers.watchfire.enabled',
      { providers: { watchfire: { enabled: 'yes' } } },
      'providers.watchfire.enabled: Invalid input: expected boolean, received string',
    ],
    ['providers.watchfire.root', { providers: { watchfire: { root: 5 } } }, 'providers.watchfire.root: Invalid input'],
    [
      'a list of paths holding a number',
      { providers: { kilo: { dataDir: ['/a', 5] } } },
      'providers.kilo.dataDir: Invalid input',
    ],
    [
      'providers.kilo.apps',
      { providers: { kilo: { apps: 'kilo' } } },
      'providers.kilo.apps: Invalid input: expected array, received string',
    ],
    ['providers.kilo.stateDir', { providers: { kilo: { stateDir: {} } } }, 'providers.kilo.stateDir: Invalid input'],
    [
      'providers.owl.reviewAfter',
      { providers: { owl: { reviewAfter: 7 } } },
      'providers.owl.reviewAfter: Invalid input: expected string, received number',
    ],
    ['providers.owl.dataDir', { providers: { owl: { dataDir: true } } }, 'providers.owl.dataDir: Invalid input'],
    [
      'providers.worktrees.enabled',
      { providers: { worktrees: { enabled: 1 } } },
      'providers.worktrees.enabled: Invalid input: expected boolean, received number',
    ],
    [
      'providers.worktrees.sets',
      { providers: { worktrees: { sets: {} } } },
      'providers.worktrees.sets: Invalid input: expected array, received object',
    ],
    [
      'providers.worktrees.sets[0]',
      { providers: { worktrees: { sets: ['codex'] } } },
      'providers.worktrees.sets[0]: Invalid input: expected object, received string',
    ],
    [
      'a set without a name',
      SET({}),
      'providers.worktrees.sets[0].name: Invalid input: expected string, received undefined',
    ],
    [
      'providers.worktrees.sets[0].roots',
      SET({ name: 'a', roots: '/x' }),
      'providers.worktrees.sets[0].roots: Invalid input: expected array, received string',
    ],
    [
      'providers.worktrees.sets[0].idleAfter',
      SET({ name: 'a', idleAfter: 3 }),
      'providers.worktrees.sets[0].idleAfter: Invalid input: expected string, received number',
    ],
    [
      'providers.worktrees.sets[0].enabled',
      SET({ name: 'a', enabled: 'no' }),
      'providers.worktrees.sets[0].enabled: Invalid input: expected boolean, received string',
    ],
    [
      'providers.cline.userDataDir',
      { providers: { cline: { userDataDir: 1 } } },
      'providers.cline.userDataDir: Invalid input',
    ],
    [
      'providers.cline.dataDir',
      { providers: { cline: { dataDir: [null] } } },
      'providers.cline.dataDir: Invalid input',
    ],
    [
      'providers.roo.extensions',
      { providers: { roo: { extensions: { roo: true } } } },
      'providers.roo.extensions: Invalid input: expected array, received object',
    ],
    [
      'providers.roo.userDataDir',
      { providers: { roo: { userDataDir: false } } },
      'providers.roo.userDataDir: Invalid input',
    ],
  ];
  for (const [key, raw, line] of wrongTypes) {
    it(`refuses a wrong type at ${key}`, () => expect(lineFor(raw)).toBe(line));
  }

  it('refuses null for any key: YAML writes it for a key with nothing after it', () => {
    expect(lineFor({ homes: null })).toBe('homes: Invalid input: expected array, received null');
    expect(lineFor({ minAge: null })).toBe('minAge: Invalid input: expected string, received null');
    expect(lineFor({ metrics: null })).toBe('metrics: Invalid input: expected object, received null');
    expect(lineFor({ providers: { roo: null } })).toBe('providers.roo: Invalid input: expected object, received null');
    expect(lineFor({ providers: { watchfire: { root: null } } })).toBe('providers.watchfire.root: Invalid input');
    expect(lineFor(SET({ name: 'a', enabled: null }))).toBe(
      'providers.worktrees.sets[0].enabled: Invalid input: expected boolean, received null',
    );
  });

  it("names a number that is no number as YAML's .nan and .inf give it", () => {
    expect(lineFor({ minAge: Number.NaN })).toBe('minAge: Invalid input: expected string, received NaN');
    expect(lineFor({ minAge: Number.POSITIVE_INFINITY })).toBe(
      'minAge: Invalid input: expected string, received Infinity',
    );
    expect(lineFor({ minAge: Number.NEGATIVE_INFINITY })).toBe(
      'minAge: Invalid input: expected string, received -Infinity',
    );
  });

  const unknownKeys: Array<[string, unknown, string]> = [
    ['the top level', { minAgee: '1h' }, 'unknown key minAgee'],
    ['metrics', { metrics: { file: 'x' } }, 'unknown key metrics.file'],
    [
      'metrics.pushgateway',
      { metrics: { pushgateway: { url: 'http://gw', name: 'x' } } },
      'unknown key metrics.pushgateway.name',
    ],
    ['serve', { serve: { port: 1 } }, 'unknown key serve.port'],
    ['providers', { providers: { cursor: {} } }, 'unknown key providers.cursor'],
    ['providers.watchfire', { providers: { watchfire: { roots: ['/w'] } } }, 'unknown key providers.watchfire.roots'],
    ['providers.kilo', { providers: { kilo: { app: ['kilo'] } } }, 'unknown key providers.kilo.app'],
    ['providers.owl', { providers: { owl: { idleAfter: '1d' } } }, 'unknown key providers.owl.idleAfter'],
    ['providers.worktrees', { providers: { worktrees: { set: [] } } }, 'unknown key providers.worktrees.set'],
    ['a worktree set', SET({ name: 'a', root: ['/x'] }), 'unknown key providers.worktrees.sets[0].root'],
    ['providers.cline', { providers: { cline: { storage: '/x' } } }, 'unknown key providers.cline.storage'],
    ['providers.roo', { providers: { roo: { extension: ['roo'] } } }, 'unknown key providers.roo.extension'],
  ];
  for (const [where, raw, line] of unknownKeys) {
    it(`refuses an unknown key in ${where}`, () => expect(lineFor(raw)).toBe(line));
  }

  it('names every unknown key of a mapping, in the order the file gives them', () => {
    expect(lineFor({ zeta: 1, alpha: 2 })).toBe('unknown key zeta, alpha');
    expect(lineFor({ serve: { b: 1, a: 2 } })).toBe('unknown key serve.b, serve.a');
  });

  it('refuses a value outside its choices', () => {
    expect(lineFor({ processCheck: 'sometimes' })).toBe(
      'processCheck: Invalid option: expected one of "auto"|"required"|"off"',
    );
    expect(lineFor({ processCheck: true })).toBe(
      'processCheck: Invalid option: expected one of "auto"|"required"|"off"',
    );
    expect(lineFor({ providers: { kilo: { apps: ['kilo', 'cursor'] } } })).toBe(
      'providers.kilo.apps[1]: Invalid option: expected one of "kilo"|"opencode"',
    );
    expect(lineFor({ providers: { roo: { extensions: ['cline'] } } })).toBe(
      'providers.roo.extensions[0]: Invalid option: expected one of "roo"|"kilo"',
    );
  });

  it('refuses a bad duration', () => {
    const expected = 'expected a duration such as 0s, 90s, 30m, 1h or 7d';
    expect(lineFor({ minAge: 'soon' })).toBe(`minAge: ${expected}`);
    expect(lineFor({ minAge: '' })).toBe(`minAge: ${expected}`);
    expect(lineFor({ providers: { owl: { reviewAfter: '1 week' } } })).toBe(`providers.owl.reviewAfter: ${expected}`);
    expect(lineFor(SET({ name: 'a', idleAfter: '3' }))).toBe(`providers.worktrees.sets[0].idleAfter: ${expected}`);
  });

  it('refuses an empty list', () => {
    expect(lineFor({ homes: [] })).toBe(`homes: ${LIST_TOO_SHORT}`);
    expect(lineFor(SET({ name: 'a', roots: [] }))).toBe(`providers.worktrees.sets[0].roots: ${LIST_TOO_SHORT}`);
    expect(lineFor({ providers: { watchfire: { root: [] } } })).toBe(`providers.watchfire.root: ${LIST_TOO_SHORT}`);
    expect(lineFor({ providers: { roo: { userDataDir: [] } } })).toBe(`providers.roo.userDataDir: ${LIST_TOO_SHORT}`);
    // The lists of choices may be empty: such a provider simply has nothing to read.
    expect(accepted({ providers: { kilo: { apps: [] }, roo: { extensions: [] } } })).toMatchObject({
      providers: { kilo: { apps: [] }, roo: { extensions: [] } },
    });
  });

  it('refuses an empty string', () => {
    expect(lineFor({ homes: ['/a', ''] })).toBe(`homes[1]: ${STRING_TOO_SHORT}`);
    expect(lineFor({ reportDir: '' })).toBe(`reportDir: ${STRING_TOO_SHORT}`);
    expect(lineFor({ metrics: { textfile: '' } })).toBe(`metrics.textfile: ${STRING_TOO_SHORT}`);
    expect(lineFor({ metrics: { pushgateway: { url: 'http://gw', job: '' } } })).toBe(
      `metrics.pushgateway.job: ${STRING_TOO_SHORT}`,
    );
    expect(lineFor({ serve: { schedule: '' } })).toBe(`serve.schedule: ${STRING_TOO_SHORT}`);
    expect(lineFor(SET({ name: '' }))).toBe(`providers.worktrees.sets[0].name: ${STRING_TOO_SHORT}`);
    expect(lineFor(SET({ name: 'a', roots: ['/x', ''] }))).toBe(
      `providers.worktrees.sets[0].roots[1]: ${STRING_TOO_SHORT}`,
    );
    expect(lineFor({ providers: { watchfire: { root: '' } } })).toBe(`providers.watchfire.root: ${STRING_TOO_SHORT}`);
    expect(lineFor({ providers: { kilo: { dataDir: ['/a', ''] } } })).toBe(
      `providers.kilo.dataDir[1]: ${STRING_TOO_SHORT}`,
    );
  });

  it('refuses a listen address that is not HOST:PORT', () => {
    for (const listen of ['9464', 'host', 'host:', 'a b:1', 'host:123456', '[::1]9464', 'h:1\n']) {
      expect(lineFor({ serve: { listen } })).toBe('serve.listen: expected HOST:PORT, such as 0.0.0.0:9464');
    }
    for (const listen of ['0.0.0.0:9464', '[::1]:9464', ':9464', 'localhost:0', 'host:99999']) {
      expect(accepted({ serve: { listen } })).toMatchObject({ serve: { listen } });
    }
  });

  it('takes as the pushgateway any URL the URL parser takes, trimmed and without tabs or line breaks', () => {
    for (const url of ['', 'gw 9091', 'http://', '//gw:9091', 'http://[::1', 'x://a b']) {
      expect(lineFor({ metrics: { pushgateway: { url } } })).toBe('metrics.pushgateway.url: Invalid URL');
    }
    const kept = (url: string) => (accepted({ metrics: { pushgateway: { url } } }) as typeof DEFAULTS).metrics;
    expect(kept('http://gw:9091')).toEqual({ pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } });
    expect(kept(' http://gw:9091\n')).toEqual({ pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } });
    expect(kept('http://g\tw:90\r91')).toEqual({ pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } });
    // Any scheme: `pushgateway:9091` is a URL of the scheme `pushgateway`, only --pushgateway asks for http(s).
    expect(kept('pushgateway:9091')).toEqual({ pushgateway: { url: 'pushgateway:9091', job: 'agent-janitor' } });
    expect(kept('mailto:ops@example.com')).toEqual({
      pushgateway: { url: 'mailto:ops@example.com', job: 'agent-janitor' },
    });
  });

  it("reports the first problem in the shape's order, a mapping's own keys before its unknown ones", () => {
    // minAge comes before processCheck in the shape, whatever the file's order.
    expect(lineFor({ processCheck: 'x', minAge: 'x' })).toMatch(/^minAge: /);
    expect(lineFor({ zzz: 1, minAge: 'x' })).toMatch(/^minAge: /);
    // A nested mapping's unknown key comes before a later sibling's bad value.
    expect(lineFor({ providers: { owl: { reviewAfter: 1 }, kilo: { app: [] } } })).toBe(
      'unknown key providers.kilo.app',
    );
    // ...and a bad value inside a mapping before the unknown keys beside it.
    expect(lineFor({ unknown: 1, serve: { listen: 'x' } })).toBe(
      'serve.listen: expected HOST:PORT, such as 0.0.0.0:9464',
    );
    expect(lineFor({ homes: ['', 5] })).toBe(`homes[0]: ${STRING_TOO_SHORT}`);
    expect(lineFor({ providers: { worktrees: { sets: [{ name: 'a' }, { name: 1 }, {}] } } })).toBe(
      'providers.worktrees.sets[1].name: Invalid input: expected string, received number',
    );
  });
});
