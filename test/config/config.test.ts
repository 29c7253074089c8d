import { kiloConfig } from '../../src/providers/kilo/config.js';
import { owlConfig } from '../../src/providers/owl/config.js';
import { watchfireConfig } from '../../src/providers/watchfire/config.js';
import { worktreesConfig } from '../../src/providers/worktrees/config.js';
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { expandHomes } from '../../src/config/homes.js';
import { parseDuration } from '../../src/util/duration.js';
import { ConfigError } from '../../src/model/errors.js';
import { tempDir } from '../helpers/temp.js';
import { PROVIDERS } from '../../src/providers/registry.js';

function configFile(text: string): string {
  const file = path.join(tempDir(), 'config.yaml');
  writeFileSync(file, text);
  return file;
}

describe('durations', () => {
  it('reads the units of the contract and refuses anything else', () => {
    expect(parseDuration('0s')).toBe(0);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    for (const bad of ['', '1', 'h', '1 h', '-1h', '1y', '1.5h']) expect(parseDuration(bad)).toBeNull();
  });
});

describe('loadConfig', () => {
  it('completes built-in defaults from the environment', async () => {
    const home = tempDir();
    const config = await loadConfig({
      providers: PROVIDERS,
      env: { HOME: home, XDG_STATE_HOME: path.join(home, 'state') },
      isRoot: false,
    });
    expect(config.homes).toEqual([home]);
    expect(config.minAge).toBe('1h');
    expect(config.processCheck).toBe('auto');
    expect(config.reportDir).toBe(path.join(home, 'state', 'agent-janitor'));
    expect(kiloConfig(config).apps).toEqual(['kilo', 'opencode']);
    // Every built-in set is on, none is configured.
    expect(worktreesConfig(config).sets.map((set) => [set.name, set.enabled])).toEqual([
      ['codex', true],
      ['claude-code', true],
      ['claude-squad', true],
      ['conductor', true],
      ['container-use', true],
      ['cursor', true],
      ['vibe-kanban', true],
      ['opencode', true],
      ['kilo', true],
      ['copilot', true],
    ]);
    expect(config.source).toBeNull();
  });

  it('puts reports in /var/lib/agent-janitor when run as root', async () => {
    const config = await loadConfig({ providers: PROVIDERS, env: { HOME: '/root' }, isRoot: true });
    expect(config.reportDir).toBe('/var/lib/agent-janitor');
  });

  it('reads every documented key', async () => {
    const file = configFile(`
homes: ["/home/*", "/root"]
minAge: 30m
reportDir: /tmp/aj-reports
processCheck: required
metrics:
  textfile: /tmp/aj.prom
  pushgateway: { url: "http://pushgateway:9091" }
serve: { schedule: "*/5 * * * *", listen: "127.0.0.1:9999" }
providers:
  watchfire: { enabled: false }
  kilo: { apps: [kilo] }
  owl: { reviewAfter: 3d }
  worktrees:
    sets:
      - { name: vibe-kanban, roots: ["/var/tmp/vibe-kanban/worktrees/*"], idleAfter: 3d }
`);
    const config = await loadConfig({ providers: PROVIDERS, file, env: { HOME: '/nonexistent' } });
    expect(config.homes).toEqual(['/home/*', '/root']);
    expect(config.minAge).toBe('30m');
    expect(config.processCheck).toBe('required');
    expect(config.metrics.pushgateway).toEqual({ url: 'http://pushgateway:9091', job: 'agent-janitor' });
    expect(config.serve.listen).toBe('127.0.0.1:9999');
    expect(watchfireConfig(config).enabled).toBe(false);
    expect(kiloConfig(config).enabled).toBe(true);
    expect(owlConfig(config).reviewAfter).toBe('3d');
    expect(worktreesConfig(config).sets.find((set) => set.name === 'vibe-kanban')).toEqual({
      name: 'vibe-kanban',
      roots: ['/var/tmp/vibe-kanban/worktrees/*'],
      idleAfter: '3d',
      enabled: true,
    });
    expect(config.source).toBe(file);
  });

  it('names the file and key for a set that is not built in and has no roots, and for a name given twice', async () => {
    const noRoots = configFile('providers:\n  worktrees:\n    sets:\n      - { name: mine, idleAfter: 2d }\n');
    await expect(loadConfig({ providers: PROVIDERS, file: noRoots, env: { HOME: '/nonexistent' } })).rejects.toThrow(
      new RegExp(
        `^${noRoots}: providers\\.worktrees\\.sets\\[0\\]\\.roots: set mine is not built in, so it needs roots`,
      ),
    );
    const twice = configFile(
      'providers:\n  worktrees:\n    sets:\n      - { name: codex, enabled: false }\n      - { name: codex, idleAfter: 9d }\n',
    );
    await expect(loadConfig({ providers: PROVIDERS, file: twice, env: { HOME: '/nonexistent' } })).rejects.toThrow(
      /providers\.worktrees\.sets\[1\]\.name: set codex is already named by providers\.worktrees\.sets\[0\]/,
    );
    const relative = configFile('providers:\n  worktrees:\n    sets:\n      - { name: rel, roots: [worktrees/*] }\n');
    await expect(loadConfig({ providers: PROVIDERS, file: relative, env: { HOME: '/nonexistent' } })).rejects.toThrow(
      /sets\[0\]\.roots\[0\]: "worktrees\/\*": a root is an absolute path, or starts with ~\/ or an anchor/,
    );
  });

  it('lets command-line overrides win', async () => {
    const file = configFile('minAge: 2h\nhomes: [/a]\n');
    const config = await loadConfig({
      providers: PROVIDERS,
      file,
      env: {},
      overrides: {
        minAge: '0s',
        homes: ['/b'],
        reportDir: '/tmp/x',
        metricsFile: '/tmp/m.prom',
        pushgateway: 'http://127.0.0.1:9091',
      },
    });
    expect(config.minAge).toBe('0s');
    expect(config.homes).toEqual(['/b']);
    expect(config.reportDir).toBe('/tmp/x');
    expect(config.metrics.textfile).toBe('/tmp/m.prom');
    expect(config.metrics.pushgateway?.url).toBe('http://127.0.0.1:9091');
  });

  const cases: Array<[string, string, RegExp]> = [
    ['an unknown top-level key', 'minAgee: 1h\n', /: unknown key minAgee$/],
    ['an unknown nested key', 'providers:\n  kilo: { app: [kilo] }\n', /: unknown key providers\.kilo\.app$/],
    ['a bad duration', 'minAge: soon\n', /: minAge: expected a duration/],
    [
      'a bad nested duration',
      'providers:\n  worktrees:\n    sets: [{ name: a, roots: [/x], idleAfter: 3 }]\n',
      /providers\.worktrees\.sets\[0\]\.idleAfter/,
    ],
    ['a bad enum', 'processCheck: sometimes\n', /: processCheck: /],
    ['a bad app', 'providers:\n  kilo: { apps: [cursor] }\n', /providers\.kilo\.apps\[0\]/],
    ['broken YAML', 'homes: [unclosed\n', /not valid YAML at line \d+/],
    ['a list at the top', '- a\n- b\n', /must be a YAML mapping/],
    ['a duplicate key', 'minAge: 1h\nminAge: 2h\n', /not valid YAML/],
  ];
  for (const [what, text, pattern] of cases) {
    it(`names the file and key for ${what}`, async () => {
      const file = configFile(text);
      const error = await loadConfig({ providers: PROVIDERS, file, env: {} }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message.startsWith(`${file}: `)).toBe(true);
      expect(message).toMatch(pattern);
      expect(message).not.toContain('\n');
    });
  }

  it('names the file that cannot be read', async () => {
    const error = await loadConfig({ providers: PROVIDERS, file: '/nonexistent/agent-janitor.yaml', env: {} }).catch(
      (err: unknown) => err,
    );
    expect((error as Error).message).toMatch(/^\/nonexistent\/agent-janitor\.yaml: cannot read/);
  });

  it('takes the file from $AGENT_JANITOR_CONFIG', async () => {
    const file = configFile('minAge: 5m\n');
    const config = await loadConfig({ providers: PROVIDERS, env: { AGENT_JANITOR_CONFIG: file } });
    expect(config.minAge).toBe('5m');
  });

  it('refuses a bad --min-age naming the option', async () => {
    await expect(loadConfig({ providers: PROVIDERS, env: {}, overrides: { minAge: 'later' } })).rejects.toThrow(
      /^--min-age: /,
    );
  });
});

describe('homes globs', () => {
  it('expands * within a component to real folders only, never links or dotfiles', async () => {
    const base = tempDir();
    for (const name of ['ana', 'bob', '.hidden']) mkdirSync(path.join(base, 'home', name), { recursive: true });
    writeFileSync(path.join(base, 'home', 'file'), '');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(path.join(base, 'home', 'ana'), path.join(base, 'home', 'link'));
    expect(await expandHomes([path.join(base, 'home', '*')])).toEqual([
      path.join(base, 'home', 'ana'),
      path.join(base, 'home', 'bob'),
    ]);
    expect(await expandHomes([path.join(base, 'home', '[ab]*')])).toEqual([
      path.join(base, 'home', 'ana'),
      path.join(base, 'home', 'bob'),
    ]);
    expect(await expandHomes([path.join(base, 'nothing', '*')])).toEqual([]);
    expect(await expandHomes([path.join(base, 'home', 'ana'), path.join(base, 'home', 'a*')])).toEqual([
      path.join(base, 'home', 'ana'),
    ]);
  });
});
