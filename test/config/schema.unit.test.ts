import { describe, expect, it } from 'vitest';
import { configSchemaFor } from '../../src/config/schema.js';
import { parseSize } from '../../src/config/size.js';
import { PROVIDERS } from '../../src/providers/registry.js';

const configSchema = configSchemaFor(PROVIDERS);
import { describeIssue } from '../../src/util/zod-issue.js';

/** What a config file gets: its value with every default, or the one line after the file's name. */
async function outcome(raw: unknown): Promise<{ value: unknown } | { line: string }> {
  const checked = await configSchema.safeParseAsync(raw);
  return checked.success ? { value: checked.data } : { line: describeIssue(checked.error) };
}

const lineFor = async (raw: unknown): Promise<string> => {
  const result = await outcome(raw);
  if (!('line' in result)) throw new Error(`accepted: ${JSON.stringify(result.value)}`);
  return result.line;
};

const accepted = async (raw: unknown): Promise<unknown> => {
  const result = await outcome(raw);
  if ('line' in result) throw new Error(`refused: ${result.line}`);
  return result.value;
};

const DEFAULTS = {
  minAge: '1h',
  processCheck: 'auto',
  footprint: { enabled: true },
  metrics: {},
  serve: { schedule: '*/30 * * * *', listen: '0.0.0.0:9464' },
  reclaim: { walMinBytes: '64MiB' },
  providers: {
    watchfire: { enabled: true },
    kilo: { enabled: true, apps: ['kilo', 'opencode'] },
    owl: { enabled: true, reviewAfter: '7d' },
    worktrees: { enabled: true, sets: [] },
    cline: { enabled: true },
    roo: { enabled: true, extensions: ['roo', 'kilo'] },
    'claude-code': { enabled: true },
    gemini: { enabled: true, tools: ['gemini', 'qwen'], applyOwnerRetention: false },
    codex: { enabled: true },
    copilot: { enabled: true },
    goose: { enabled: true },
  },
};

const SET = (set: Record<string, unknown>) => ({ providers: { worktrees: { sets: [set] } } });
const STRING_TOO_SHORT = 'Too small: expected string to have >=1 characters';
const LIST_TOO_SHORT = 'Too small: expected array to have >=1 items';
const HTTP_URL = 'Invalid URL: expected http:// or https://, such as http://pushgateway:9091';

describe('the config schema: defaults', () => {
  it('fills in every default of an empty file, and leaves out the keys without one', async () => {
    const value = await accepted({});
    expect(value).toStrictEqual(DEFAULTS);
    expect(Object.keys(value as object)).not.toContain('homes');
    expect(Object.keys(value as object)).not.toContain('reportDir');
  });

  it('gives an empty section the same defaults as a missing one', async () => {
    const empty = { metrics: {}, serve: {}, reclaim: {}, providers: {} };
    expect(await accepted(empty)).toStrictEqual(DEFAULTS);
    const emptyProviders = { watchfire: {}, kilo: {}, owl: {}, worktrees: {}, cline: {}, roo: {}, gemini: {} };
    expect(await accepted({ providers: emptyProviders })).toStrictEqual(DEFAULTS);
  });

  it('defaults the pushgateway job, and nothing of a worktree set but what it names', async () => {
    expect(await accepted({ metrics: { pushgateway: { url: 'http://gw:9091' } } })).toMatchObject({
      metrics: { pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } },
    });
    expect(await accepted(SET({ name: 'codex' }))).toMatchObject({
      providers: { worktrees: { enabled: true, sets: [{ name: 'codex' }] } },
    });
    const { sets } = ((await accepted(SET({ name: 'codex' }))) as { providers: { worktrees: { sets: object[] } } })
      .providers.worktrees;
    expect(sets.map((set) => Object.keys(set))).toEqual([['name']]);
  });

  it('keeps what the file gives, a single path made a list', async () => {
    const given = {
      homes: ['/home/*', '/root'],
      minAge: '1h30m',
      reportDir: '/var/lib/agent-janitor',
      processCheck: 'off',
      footprint: { enabled: false },
      metrics: { textfile: '/tmp/m.prom', pushgateway: { url: 'https://gw', job: 'mine' } },
      serve: { schedule: '* * * * *', listen: '[::1]:80' },
      reclaim: { walMinBytes: '1GiB' },
      providers: {
        watchfire: { enabled: false, root: '/w' },
        kilo: { apps: [], dataDir: ['/a', '/b'], stateDir: '/s' },
        owl: { reviewAfter: '3d', dataDir: '/o' },
        worktrees: { enabled: false, sets: [{ name: 'x', roots: ['/x/*'], idleAfter: '2d', enabled: false }] },
        cline: { userDataDir: '/u', dataDir: ['/d'] },
        roo: { extensions: ['kilo'], userDataDir: ['/u'] },
        'claude-code': { tmpDir: '/scratch' },
        gemini: { tools: ['qwen'], dir: '/g/.qwen', applyOwnerRetention: true },
        goose: { stateDir: '/gs', dataDir: ['/gd'] },
      },
    };
    expect(await accepted(given)).toStrictEqual({
      ...given,
      providers: {
        watchfire: { enabled: false, root: ['/w'] },
        kilo: { enabled: true, apps: [], dataDir: ['/a', '/b'], stateDir: ['/s'] },
        owl: { enabled: true, reviewAfter: '3d', dataDir: ['/o'] },
        worktrees: given.providers.worktrees,
        cline: { enabled: true, userDataDir: ['/u'], dataDir: ['/d'] },
        roo: { enabled: true, extensions: ['kilo'], userDataDir: ['/u'] },
        'claude-code': { enabled: true, tmpDir: ['/scratch'] },
        gemini: { enabled: true, tools: ['qwen'], dir: ['/g/.qwen'], applyOwnerRetention: true },
        codex: { enabled: true },
        copilot: { enabled: true },
        goose: { enabled: true, stateDir: ['/gs'], dataDir: ['/gd'] },
      },
    });
  });

  it('makes every default afresh: changing one answer does not change the next', async () => {
    const first = (await accepted({})) as typeof DEFAULTS;
    first.providers.kilo.apps.push('changed' as 'kilo');
    (first.providers.worktrees.sets as unknown[]).push({ name: 'changed' });
    expect(await accepted({})).toStrictEqual(DEFAULTS);
  });
});

describe('the config schema: one line naming the key', () => {
  const wrongTypes: Array<[string, unknown, string]> = [
    ['homes', { homes: 5 }, 'homes: expected a path or a list of paths, got 5'],
    ['homes[1]', { homes: ['/a', 1] }, 'homes[1]: Invalid input: expected string, received number'],
    ['minAge', { minAge: 3 }, 'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got 3'],
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
    [
      'providers.watchfire.root',
      { providers: { watchfire: { root: 5 } } },
      'providers.watchfire.root: expected a path or a list of paths, got 5',
    ],
    [
      'a list of paths holding a number',
      { providers: { kilo: { dataDir: ['/a', 5] } } },
      'providers.kilo.dataDir[1]: Invalid input: expected string, received number',
    ],
    [
      'providers.kilo.apps',
      { providers: { kilo: { apps: 'kilo' } } },
      'providers.kilo.apps: Invalid input: expected array, received string',
    ],
    [
      'providers.kilo.stateDir',
      { providers: { kilo: { stateDir: {} } } },
      'providers.kilo.stateDir: expected a path or a list of paths, got {}',
    ],
    [
      'providers.owl.reviewAfter',
      { providers: { owl: { reviewAfter: 7 } } },
      'providers.owl.reviewAfter: expected a duration such as 0s, 90s, 30m, 1h or 7d, got 7',
    ],
    [
      'providers.owl.dataDir',
      { providers: { owl: { dataDir: true } } },
      'providers.owl.dataDir: expected a path or a list of paths, got true',
    ],
    [
      'providers.gemini.applyOwnerRetention',
      { providers: { gemini: { applyOwnerRetention: 'yes' } } },
      'providers.gemini.applyOwnerRetention: Invalid input: expected boolean, received string',
    ],
    [
      'providers.goose.stateDir',
      { providers: { goose: { stateDir: 5 } } },
      'providers.goose.stateDir: expected a path or a list of paths, got 5',
    ],
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
      'providers.worktrees.sets[0].idleAfter: expected a duration such as 0s, 90s, 30m, 1h or 7d, got 3',
    ],
    [
      'providers.worktrees.sets[0].enabled',
      SET({ name: 'a', enabled: 'no' }),
      'providers.worktrees.sets[0].enabled: Invalid input: expected boolean, received string',
    ],
    [
      'providers.cline.userDataDir',
      { providers: { cline: { userDataDir: 1 } } },
      'providers.cline.userDataDir: expected a path or a list of paths, got 1',
    ],
    [
      'providers.cline.dataDir',
      { providers: { cline: { dataDir: [null] } } },
      'providers.cline.dataDir[0]: Invalid input: expected string, received null',
    ],
    [
      'providers.roo.extensions',
      { providers: { roo: { extensions: { roo: true } } } },
      'providers.roo.extensions: Invalid input: expected array, received object',
    ],
    [
      'providers.roo.userDataDir',
      { providers: { roo: { userDataDir: false } } },
      'providers.roo.userDataDir: expected a path or a list of paths, got false',
    ],
  ];
  for (const [key, raw, line] of wrongTypes) {
    it(`refuses a wrong type at ${key}`, async () => expect(await lineFor(raw)).toBe(line));
  }

  it('refuses null for any key: YAML writes it for a key with nothing after it', async () => {
    expect(await lineFor({ homes: null })).toBe('homes: expected a path or a list of paths, got null');
    expect(await lineFor({ minAge: null })).toBe(
      'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got null',
    );
    expect(await lineFor({ metrics: null })).toBe('metrics: Invalid input: expected object, received null');
    expect(await lineFor({ providers: { roo: null } })).toBe(
      'providers.roo: Invalid input: expected object, received null',
    );
    expect(await lineFor({ providers: { watchfire: { root: null } } })).toBe(
      'providers.watchfire.root: expected a path or a list of paths, got null',
    );
    expect(await lineFor(SET({ name: 'a', enabled: null }))).toBe(
      'providers.worktrees.sets[0].enabled: Invalid input: expected boolean, received null',
    );
  });

  it("names a number that is no number as YAML's .nan and .inf give it", async () => {
    expect(await lineFor({ minAge: Number.NaN })).toBe(
      'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got NaN',
    );
    expect(await lineFor({ minAge: Number.POSITIVE_INFINITY })).toBe(
      'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got Infinity',
    );
    expect(await lineFor({ minAge: Number.NEGATIVE_INFINITY })).toBe(
      'minAge: expected a duration such as 0s, 90s, 30m, 1h or 7d, got -Infinity',
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
    ['footprint', { footprint: { categories: [] } }, 'unknown key footprint.categories'],
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
    it(`refuses an unknown key in ${where}`, async () => expect(await lineFor(raw)).toBe(line));
  }

  it('names every unknown key of a mapping, in the order the file gives them', async () => {
    expect(await lineFor({ zeta: 1, alpha: 2 })).toBe('unknown key zeta, alpha');
    expect(await lineFor({ serve: { b: 1, a: 2 } })).toBe('unknown key serve.b, serve.a');
  });

  it('refuses a value outside its choices', async () => {
    expect(await lineFor({ processCheck: 'sometimes' })).toBe(
      'processCheck: Invalid option: expected one of "auto"|"required"|"off"',
    );
    expect(await lineFor({ processCheck: true })).toBe(
      'processCheck: Invalid option: expected one of "auto"|"required"|"off"',
    );
    expect(await lineFor({ providers: { kilo: { apps: ['kilo', 'cursor'] } } })).toBe(
      'providers.kilo.apps[1]: Invalid option: expected one of "kilo"|"opencode"',
    );
    expect(await lineFor({ providers: { roo: { extensions: ['cline'] } } })).toBe(
      'providers.roo.extensions[0]: Invalid option: expected one of "roo"|"kilo"',
    );
  });

  it('refuses a bad duration', async () => {
    // The words of --min-age: a number and a text without its unit alike.
    const expected = 'expected a duration such as 0s, 90s, 30m, 1h or 7d, got';
    expect(await lineFor({ minAge: 'soon' })).toBe(`minAge: ${expected} "soon"`);
    expect(await lineFor({ minAge: '' })).toBe(`minAge: ${expected} ""`);
    expect(await lineFor({ minAge: 5 })).toBe(`minAge: ${expected} 5`);
    expect(await lineFor({ providers: { owl: { reviewAfter: '1 week' } } })).toBe(
      `providers.owl.reviewAfter: ${expected} "1 week"`,
    );
    expect(await lineFor(SET({ name: 'a', idleAfter: '3' }))).toBe(
      `providers.worktrees.sets[0].idleAfter: ${expected} "3"`,
    );
  });

  it('reads a size with its binary unit, and refuses any other in one line naming the key', async () => {
    for (const [text, bytes] of [
      ['100B', 100],
      ['512KiB', 512 * 1024],
      ['64MiB', 64 * 1024 ** 2],
      ['1GiB', 1024 ** 3],
      ['2TiB', 2 * 1024 ** 4],
      ['0B', 0],
    ] as const) {
      expect(await accepted({ reclaim: { walMinBytes: text } })).toMatchObject({ reclaim: { walMinBytes: text } });
      expect(parseSize(text)).toBe(bytes);
    }
    const expected = 'reclaim.walMinBytes: expected a size such as 100B, 512KiB, 64MiB or 1GiB, got';
    for (const [value, shown] of [
      ['64MB', '"64MB"'],
      ['64 MiB', '"64 MiB"'],
      ['1.5GiB', '"1.5GiB"'],
      ['64mib', '"64mib"'],
      ['', '""'],
      [65536, '65536'],
      [null, 'null'],
    ] as const)
      expect(await lineFor({ reclaim: { walMinBytes: value } })).toBe(`${expected} ${shown}`);
    expect(await lineFor({ reclaim: { walMinBytes: '64MiB', min: 1 } })).toBe('unknown key reclaim.min');
    expect(await lineFor({ reclaim: '64MiB' })).toBe('reclaim: Invalid input: expected object, received string');
  });

  it('refuses an empty list', async () => {
    expect(await lineFor({ homes: [] })).toBe(`homes: ${LIST_TOO_SHORT}`);
    expect(await lineFor(SET({ name: 'a', roots: [] }))).toBe(`providers.worktrees.sets[0].roots: ${LIST_TOO_SHORT}`);
    expect(await lineFor({ providers: { watchfire: { root: [] } } })).toBe(
      `providers.watchfire.root: ${LIST_TOO_SHORT}`,
    );
    expect(await lineFor({ providers: { roo: { userDataDir: [] } } })).toBe(
      `providers.roo.userDataDir: ${LIST_TOO_SHORT}`,
    );
    // The lists of choices may be empty: such a provider simply has nothing to read.
    expect(await accepted({ providers: { kilo: { apps: [] }, roo: { extensions: [] } } })).toMatchObject({
      providers: { kilo: { apps: [] }, roo: { extensions: [] } },
    });
  });

  it('refuses an empty string', async () => {
    expect(await lineFor({ homes: ['/a', ''] })).toBe(`homes[1]: ${STRING_TOO_SHORT}`);
    expect(await lineFor({ reportDir: '' })).toBe(`reportDir: ${STRING_TOO_SHORT}`);
    expect(await lineFor({ metrics: { textfile: '' } })).toBe(`metrics.textfile: ${STRING_TOO_SHORT}`);
    expect(await lineFor({ metrics: { pushgateway: { url: 'http://gw', job: '' } } })).toBe(
      `metrics.pushgateway.job: ${STRING_TOO_SHORT}`,
    );
    expect(await lineFor({ serve: { schedule: '' } })).toBe(`serve.schedule: ${STRING_TOO_SHORT}`);
    expect(await lineFor(SET({ name: '' }))).toBe(`providers.worktrees.sets[0].name: ${STRING_TOO_SHORT}`);
    expect(await lineFor(SET({ name: 'a', roots: ['/x', ''] }))).toBe(
      `providers.worktrees.sets[0].roots[1]: ${STRING_TOO_SHORT}`,
    );
    expect(await lineFor({ providers: { watchfire: { root: '' } } })).toBe(
      `providers.watchfire.root: ${STRING_TOO_SHORT}`,
    );
    expect(await lineFor({ providers: { kilo: { dataDir: ['/a', ''] } } })).toBe(
      `providers.kilo.dataDir[1]: ${STRING_TOO_SHORT}`,
    );
  });

  it('refuses a listen address that is not HOST:PORT, as serve would', async () => {
    const refused = ['9464', 'host', 'host:', 'a b:1', 'host:123456', '[::1]9464', 'h:1\n', 'host:99999', 'a[b:1'];
    for (const listen of [...refused, 'host:65536']) {
      expect(await lineFor({ serve: { listen } })).toBe('serve.listen: expected HOST:PORT, such as 0.0.0.0:9464');
    }
    for (const listen of ['0.0.0.0:9464', '[::1]:9464', ':9464', 'localhost:0', 'host:65535']) {
      expect(await accepted({ serve: { listen } })).toMatchObject({ serve: { listen } });
    }
  });

  it('refuses a schedule node-cron cannot run, saying which field is wrong and why in plain words', async () => {
    expect(await lineFor({ serve: { schedule: '61 * * * *' } })).toBe(
      'serve.schedule: not a valid cron expression "61 * * * *": the minute field is 61, but it takes 0-59',
    );
    expect(await lineFor({ serve: { schedule: '0 25 * * *' } })).toBe(
      'serve.schedule: not a valid cron expression "0 25 * * *": the hour field is 25, but it takes 0-23',
    );
    expect(await lineFor({ serve: { schedule: '0 0 * 1-13 *' } })).toBe(
      'serve.schedule: not a valid cron expression "0 0 * 1-13 *": the month field "1-13" is not one it takes: ' +
        '1-12 or jan-dec, as a number, a list (1,15), a range (1-15) or a step (*/15)',
    );
    expect(await lineFor({ serve: { schedule: 'every hour' } })).toBe(
      'serve.schedule: not a valid cron expression "every hour": it has 2 fields, but a schedule has 5 ' +
        '(minute, hour, day of the month, month, day of the week), or 6 with the second first',
    );
    expect(await lineFor({ serve: { schedule: '0 0 31 2 *' } })).toBe(
      'serve.schedule: not a valid cron expression "0 0 31 2 *": ' +
        'the day of the month field is 31, a day that none of the months it names has, so it would never run',
    );
    for (const schedule of ['* * * * *', '*/5 * * * * *', '0 3 * * 1-5', '@daily']) {
      expect(await accepted({ serve: { schedule } })).toMatchObject({ serve: { schedule } });
    }
  });

  it('takes as the pushgateway an http or https URL, trimmed and without tabs or line breaks', async () => {
    const schemes = ['pushgateway:9091', 'mailto:ops@example.com', 'ftp://gw', 'http:gw:9091', '//gw:9091'];
    for (const url of ['', 'gw 9091', 'http://', 'http://[::1', 'x://a b', ...schemes]) {
      expect(await lineFor({ metrics: { pushgateway: { url } } })).toBe(`metrics.pushgateway.url: ${HTTP_URL}`);
    }
    for (const url of [
      'http://u:p@gw:9091',
      'http://u@gw',
      'http://gw:9091/?job=x',
      'https://gw#top',
      'http://gw/?',
      'http://gw#',
    ]) {
      expect(await lineFor({ metrics: { pushgateway: { url } } })).toBe(
        'metrics.pushgateway.url: a Pushgateway URL takes no user, password, query or fragment',
      );
    }
    const kept = async (url: string) =>
      ((await accepted({ metrics: { pushgateway: { url } } })) as typeof DEFAULTS).metrics;
    expect(await kept('http://gw:9091')).toEqual({ pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } });
    expect(await kept('HTTPS://gw/push/')).toEqual({ pushgateway: { url: 'HTTPS://gw/push/', job: 'agent-janitor' } });
    expect(await kept(' http://gw:9091\n')).toEqual({ pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } });
    expect(await kept('http://g\tw:90\r91')).toEqual({ pushgateway: { url: 'http://gw:9091', job: 'agent-janitor' } });
  });

  it("reports the first problem in the shape's order, a mapping's own keys before its unknown ones", async () => {
    // minAge comes before processCheck in the shape, whatever the file's order.
    expect(await lineFor({ processCheck: 'x', minAge: 'x' })).toMatch(/^minAge: /);
    expect(await lineFor({ zzz: 1, minAge: 'x' })).toMatch(/^minAge: /);
    // A nested mapping's unknown key comes before a later sibling's bad value.
    expect(await lineFor({ providers: { owl: { reviewAfter: 1 }, kilo: { app: [] } } })).toBe(
      'unknown key providers.kilo.app',
    );
    // ...and a bad value inside a mapping before the unknown keys beside it.
    expect(await lineFor({ unknown: 1, serve: { listen: 'x' } })).toBe(
      'serve.listen: expected HOST:PORT, such as 0.0.0.0:9464',
    );
    expect(await lineFor({ homes: ['', 5] })).toBe(`homes[0]: ${STRING_TOO_SHORT}`);
    expect(await lineFor({ providers: { worktrees: { sets: [{ name: 'a' }, { name: 1 }, {}] } } })).toBe(
      'providers.worktrees.sets[1].name: Invalid input: expected string, received number',
    );
  });
});
