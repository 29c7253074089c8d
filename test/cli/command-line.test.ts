import { PROVIDER_NAMES } from '../../src/providers/registry.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { enclosedEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

// The command line as a user types it, through the built CLI: the forms of each option, what each
// command takes, and every message a refusal prints. Each run is enclosed in a temp folder, so a
// line that is read wrongly runs a pass there and nowhere else.

const COMMANDS = 'the commands are run, serve, report, demo, config, help';
const LEVELS = 'fatal, error, warn, info, debug, trace, silent';
const PROVIDERS = PROVIDER_NAMES.join(', ');

function enclosed() {
  const base = tempDir('aj-cli-');
  const env = enclosedEnv(base);
  return { base, env, home: env.HOME as string, reportDir: path.join(base, 'report') };
}

/** The one line a refused command line prints, without the program's name: exit 2, nothing on stdout. */
async function refusal(args: string[]): Promise<string> {
  const { env } = enclosed();
  const result = await runCli(args, { env });
  const shown = args.join(' ');
  expect(result.code, `${shown}: ${result.stderr}`).toBe(2);
  expect(result.stdout, shown).toBe('');
  expect(result.stderr, shown).toMatch(/^agent-janitor: [^\n]+\n$/);
  return result.stderr.slice('agent-janitor: '.length, -1);
}

/** The effective config `config` prints for a command line, and the file it names as its source. */
async function effective(args: string[], env: NodeJS.ProcessEnv) {
  const result = await runCli(['config', ...args], { env });
  expect(result.code, result.stderr).toBe(0);
  const source = /^# effective config \(from (.*)\)\n/.exec(result.stdout)?.[1];
  return { source, config: parse(result.stdout) };
}

/** What `run` prints on stdout, after checking that it exited 0. */
async function pass(args: string[], env: NodeJS.ProcessEnv) {
  const result = await runCli(['run', ...args], { env });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

describe('the forms of an option', () => {
  it('reads a value as --name VALUE, --name=VALUE, -c VALUE and -c=VALUE, before or after the command', async () => {
    const w = enclosed();
    const file = path.join(w.base, 'mine.yaml');
    writeFileSync(file, 'minAge: 3h\n');
    for (const args of [['--config', file], [`--config=${file}`], ['-c', file], [`-c=${file}`]])
      expect((await effective(args, w.env)).source, args.join(' ')).toBe(file);
    const before = await runCli(['--config', file, 'config'], { env: w.env });
    expect(before.stdout).toMatch(new RegExp(`^# effective config \\(from ${file}\\)`));
  });

  it('keeps the last value of a one-value option, and every value of --home, in order', async () => {
    const w = enclosed();
    const { config } = await effective(
      ['--min-age', '1h', '--min-age=2h', '--home', '/a', '--home=/b,/c', '--report-dir', '/r1', '--report-dir=/r2'],
      w.env,
    );
    expect(config).toMatchObject({ minAge: '2h', homes: ['/a', '/b,/c'], reportDir: '/r2' });
    const a = path.join(w.base, 'a.yaml');
    const b = path.join(w.base, 'b.yaml');
    writeFileSync(a, 'minAge: 5h\n');
    writeFileSync(b, 'minAge: 6h\n');
    expect(await effective(['-c', a, '--config', b], w.env)).toMatchObject({ source: b, config: { minAge: '6h' } });
  });

  it('takes a value that starts with - in the --name=VALUE form', async () => {
    const w = enclosed();
    const { config } = await effective(['--home=--json', `--report-dir=${path.join(w.base, '-x')}`], w.env);
    // A relative home is shown as a pass reads it: from the folder the command runs in.
    expect(config).toMatchObject({ homes: [path.resolve('--json')], reportDir: path.join(w.base, '-x') });
  });

  it('takes a flag as --name, --name=true, --name=false, --name false and --no-name, the last one winning', async () => {
    const w = enclosed();
    const at = ['--home', w.home, '--report-dir', w.reportDir];
    const isJson = async (...flags: string[]) =>
      (await pass([...at, '--report-only', ...flags], w.env)).startsWith('{');
    expect(await isJson('--json')).toBe(true);
    expect(await isJson('--json=true')).toBe(true);
    expect(await isJson('--json=false')).toBe(false);
    expect(await isJson('--json', 'false')).toBe(false);
    expect(await isJson('--no-json')).toBe(false);
    expect(await isJson('--json', '--no-json')).toBe(false);
    expect(await isJson('--no-json', '--json=true')).toBe(true);
    expect(await isJson()).toBe(false);
  });

  it('reads --dry-run as --report-only in every form, the last one winning', async () => {
    const w = enclosed();
    const modeOf = async (...flags: string[]) =>
      JSON.parse(await pass(['--home', w.home, '--report-dir', w.reportDir, '--json', ...flags], w.env)).mode;
    expect(await modeOf('--dry-run')).toBe('report-only');
    expect(await modeOf('--report-only')).toBe('report-only');
    expect(await modeOf('--dry-run=true')).toBe('report-only');
    expect(await modeOf('--report-only', '--no-dry-run')).toBe('delete');
    expect(await modeOf('--dry-run', '--report-only=false')).toBe('delete');
    expect(await modeOf('--no-report-only', '--dry-run')).toBe('report-only');
  });

  it('takes --only as a comma list, repeatable', async () => {
    const w = enclosed();
    // Three tools installed (not all of them readable: a report names each provider it looked at).
    for (const tool of ['.watchfire', '.local/share/kilo', '.local/share/coding-owl'])
      mkdirSync(path.join(w.home, tool), { recursive: true });
    const providersOf = async (...only: string[]) => {
      const result = await runCli(
        ['run', '--report-only', '--json', '--home', w.home, '--report-dir', w.reportDir, ...only],
        { env: w.env },
      );
      return (JSON.parse(result.stdout).providers as { provider: string }[]).map((entry) => entry.provider);
    };
    expect(await providersOf('--only', 'kilo')).toEqual(['kilo']);
    expect(await providersOf('--only', 'kilo,owl')).toEqual(['kilo', 'owl']);
    expect(await providersOf('--only', 'owl', '--only=kilo')).toEqual(['kilo', 'owl']);
    expect(await providersOf('--only', ' kilo , watchfire ')).toEqual(['watchfire', 'kilo']);
    expect(await providersOf()).toEqual(['watchfire', 'kilo', 'owl']);
  });

  it('keeps the last --log-level', async () => {
    const w = enclosed();
    const at = ['run', '--report-only', '--json', '--home', w.home, '--report-dir', w.reportDir];
    const loud = await runCli([...at, '--log-level=silent', '--log-level', 'debug'], { env: w.env });
    expect(loud.stderr.trim().split('\n').length).toBeGreaterThan(0);
    for (const line of loud.stderr.trim().split('\n')) expect(JSON.parse(line)).toHaveProperty('level');
    const quiet = await runCli([...at, '--log-level', 'debug', '--log-level=silent'], { env: w.env });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });

  it('gives demo its --log-level', async () => {
    const w = enclosed();
    const demo = await runCli(['demo', '--dir', path.join(w.base, 'sandbox'), '--log-level', 'info'], {
      env: w.env,
      timeoutMs: 120_000,
    });
    expect(demo.code, demo.stderr).toBe(0);
    const lines = demo.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line).level).toBeGreaterThanOrEqual(30);
  }, 180_000);
});

describe('what a command refuses, in one line naming it (exit 2)', () => {
  it('wants one known command', async () => {
    expect(await refusal([])).toBe(`name a command: ${COMMANDS}`);
    expect(await refusal(['nonsense'])).toBe(`unknown command nonsense; ${COMMANDS}`);
    expect(await refusal(['nonsense', 'run'])).toBe(`unknown command nonsense; ${COMMANDS}`);
    expect(await refusal(['help', 'nonsense'])).toBe(`unknown command nonsense; ${COMMANDS}`);
  });

  it('names an option the command does not take, as it was written', async () => {
    const named = (command: string, written: string) =>
      `unknown argument ${written} for ${command} (agent-janitor help ${command} lists its options)`;
    for (const [args, written] of [
      [['run', '--frobnicate'], '--frobnicate'],
      [['run', '--Json'], '--Json'],
      [['run', '--reportOnly'], '--reportOnly'],
      [['run', '--no-json=false'], '--no-json=false'],
      [['run', '-x'], '-x'],
      [['run', '-xyz'], '-xyz'],
      [['run', '-ca.yaml'], '-ca.yaml'],
      [['run', '--listen=h:1'], '--listen=h:1'],
      [['serve', '--json'], '--json'],
      [['config', '--json'], '--json'],
      [['config', '--report-only'], '--report-only'],
      [['config', '--only=kilo'], '--only=kilo'],
      [['config', '--log-level=info'], '--log-level=info'],
      [['demo', '-c=a.yaml'], '-c=a.yaml'],
      [['demo', '--home=/h'], '--home=/h'],
    ] as const)
      expect(await refusal([...args]), args.join(' ')).toBe(named(args[0], written));
    expect(await refusal(['run', '--frob', 'x'])).toBe(
      'unknown arguments --frob, x for run (agent-janitor help run lists its options)',
    );
    expect(await refusal(['help', 'run', '--json'])).toBe(
      'unknown argument --json for help (agent-janitor help help lists its options)',
    );
  });

  it('takes options only: an argument after the command, or anything after --, is named', async () => {
    const named = (written: string) => `unknown argument ${written} for run (agent-janitor help run lists its options)`;
    expect(await refusal(['run', 'extra'])).toBe(named('extra'));
    expect(await refusal(['run', 'report'])).toBe(named('report'));
    expect(await refusal(['run', '-'])).toBe(named('-'));
    expect(await refusal(['run', '--', 'x'])).toBe(named('x'));
    expect(await refusal(['run', '--json', '--', '--help'])).toBe(named('--help'));
    expect(await refusal(['run', '--', '--version'])).toBe(named('--version'));
  });

  it('names an option left without its value, and the value it takes', async () => {
    for (const [args, message] of [
      [['run', '--config'], '--config needs a value: --config FILE'],
      [['run', '-c'], '--config needs a value: --config FILE'],
      [['run', '--config='], '--config needs a value: --config FILE'],
      [['run', '--config', '--json'], '--config needs a value: --config FILE'],
      [['run', '--home'], '--home needs a value: --home DIR'],
      [['run', '--home', '-x'], '--home needs a value: --home DIR'],
      [['run', '--home', '/a', '--home='], '--home needs a value: --home DIR'],
      [['run', '--report-dir', '-'], '--report-dir needs a value: --report-dir DIR'],
      [['run', '--only'], '--only needs a value: --only NAME[,NAME]'],
      [['run', '--min-age'], '--min-age needs a value: --min-age DURATION'],
      [['run', '--metrics-file'], '--metrics-file needs a value: --metrics-file FILE'],
      [['run', '--pushgateway'], '--pushgateway needs a value: --pushgateway URL'],
      [['run', '--log-level'], '--log-level needs a value: --log-level LEVEL'],
      [['serve', '--listen'], '--listen needs a value: --listen HOST:PORT'],
      [['report', '--report-dir'], '--report-dir needs a value: --report-dir DIR'],
      [['demo', '--dir'], '--dir needs a value: --dir DIR'],
    ] as const)
      expect(await refusal([...args]), args.join(' ')).toBe(message);
  });

  it('refuses --no- before an option that takes a value', async () => {
    expect(await refusal(['run', '--no-config'])).toBe('--no-config: --config is not a flag; give --config FILE');
    expect(await refusal(['config', '--no-home'])).toBe('--no-home: --home is not a flag; give --home DIR');
  });

  it('refuses a flag written with a value other than true or false', async () => {
    expect(await refusal(['run', '--json=yes'])).toBe('--json takes true or false, got "yes"');
    // Read as false, these would start a pass that deletes.
    expect(await refusal(['run', '--dry-run=yes'])).toBe('--dry-run takes true or false, got "yes"');
    expect(await refusal(['serve', '--report-only=1'])).toBe('--report-only takes true or false, got "1"');
    expect(await refusal(['run', '--dry-run='])).toBe('--dry-run takes true or false, got ""');
  });

  it('names a log level or a provider that is not one, with the ones there are', async () => {
    expect(await refusal(['run', '--log-level', 'loud'])).toBe(`--log-level: "loud" is not one of ${LEVELS}`);
    expect(await refusal(['demo', '--log-level=INFO'])).toBe(`--log-level: "INFO" is not one of ${LEVELS}`);
    expect(await refusal(['run', '--only', 'watchfire,cursor'])).toBe(
      `--only: unknown provider "cursor" (known: ${PROVIDERS})`,
    );
    expect(await refusal(['serve', '--only=kilo', '--only', 'Kilo'])).toBe(
      `--only: unknown provider "Kilo" (known: ${PROVIDERS})`,
    );
  });
});
