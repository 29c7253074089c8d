import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, enclosedEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

// Help and the version as a user asks for them: -h, --help, `help [command]`, -V and --version,
// anywhere on the line, on stdout with exit 0, whatever else the line holds.

const VERSION = JSON.parse(readFileSync(path.join(path.dirname(CLI), '..', 'package.json'), 'utf8')).version as string;

/** What a command line prints on stdout, after checking that it exits 0 and says nothing on stderr. */
async function shown(args: string[]): Promise<string> {
  const result = await runCli(args, { env: enclosedEnv(tempDir('aj-help-')) });
  expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
  return result.stdout;
}

/** The long names of the options a help text lists, in order. */
const optionsIn = (help: string) => [...help.matchAll(/^ {2}(?:-\w, | {4})(--[\w-]+)/gm)].map((match) => match[1]);

/** Each command's options, then -h and -V. */
const OWN_OPTIONS = {
  run: [
    '--config',
    '--home',
    '--min-age',
    '--report-dir',
    '--metrics-file',
    '--pushgateway',
    '--only',
    '--report-only',
    '--json',
    '--log-level',
  ],
  serve: [
    '--config',
    '--home',
    '--min-age',
    '--report-dir',
    '--metrics-file',
    '--pushgateway',
    '--only',
    '--report-only',
    '--listen',
    '--log-level',
  ],
  report: ['--config', '--report-dir', '--json'],
  demo: ['--dir', '--log-level'],
  config: ['--config', '--home', '--min-age', '--report-dir', '--metrics-file', '--pushgateway'],
} as const;

const EXIT_CODES = {
  run: ['0', '1', '2', '75', '130', '143'],
  serve: ['0', '1', '2'],
  report: ['0', '1', '2'],
  demo: ['0', '1', '2'],
  config: ['0', '2'],
} as const;

describe('help', () => {
  it('lists every command with its line, and -h and -V, for --help, -h and `help`', async () => {
    const help = await shown(['--help']);
    expect(help.split('\n')[0]).toBe('Usage: agent-janitor <command> [options]');
    for (const [command, line] of [
      ['help [command]', 'show the help of a command, or this list'],
      ['run', 'one reconcile pass over every enabled provider, then exit'],
      ['serve', 'passes on the cron schedule, with HTTP /metrics, /healthz and /report'],
      ['report', 'print the latest report (Markdown, or JSON with --json)'],
      ['demo', 'build a sandbox, run a report-only pass and a real pass on it'],
      ['config', 'validate the config and print the effective config as YAML'],
    ])
      expect(help.replace(/\s+/g, ' '), command).toContain(`agent-janitor ${command} ${line}`);
    expect(help).toMatch(/^ {2}-h, --help +this help +\[boolean\]$/m);
    expect(help).toMatch(/^ {2}-V, --version +the version +\[boolean\]$/m);
    expect(help.replace(/\s+/g, ' ')).toContain(
      "`agent-janitor help <command>` (or `agent-janitor <command> --help`) lists a command's options, exit codes and an example.",
    );
    expect(optionsIn(help)).toEqual(['--help', '--version']);
    expect(await shown(['-h'])).toBe(help);
    expect(await shown(['help'])).toBe(help);
    // Before any command, an unknown one included.
    expect(await shown(['--help', 'nonsense'])).toBe(help);
    expect(await shown(['nonsense', '-h'])).toBe(help);
  });

  for (const command of Object.keys(OWN_OPTIONS) as (keyof typeof OWN_OPTIONS)[])
    it(`gives ${command} its own options, exit codes and an example, however it is asked for`, async () => {
      const help = await shown(['help', command]);
      const lines = help.split('\n');
      expect(lines[0]).toBe(`Usage: agent-janitor ${command} [options]`);
      expect(optionsIn(help)).toEqual([...OWN_OPTIONS[command], '--help', '--version']);
      const codes = lines.slice(lines.indexOf('Exit status:') + 1).filter((line) => /^ {2}\d+ /.test(line));
      expect(codes.map((line) => line.trim().split(' ')[0])).toEqual(EXIT_CODES[command]);
      // Each code's meaning on its own line, within 80 columns.
      for (const line of codes) expect(line.length, line).toBeLessThanOrEqual(80);
      expect(help).toMatch(new RegExp(`^Examples:\\n {2}agent-janitor ${command} \\S`, 'm'));
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
      for (const args of [
        [command, '--help'],
        [command, '-h'],
        ['--help', command],
        ['-h', command],
      ])
        expect(await shown(args), args.join(' ')).toBe(help);
    });

  it('says what run and serve do with their flags and values, and how a flag is written', async () => {
    const run = (await shown(['run', '--help'])).replace(/\s+/g, ' ');
    expect(run).toContain(
      '-c, --config the YAML config file (FILE) [string] [default: $AGENT_JANITOR_CONFIG, else built-in defaults]',
    );
    expect(run).toContain('--report-only, --dry-run change nothing on disk');
    expect(run).toContain('--only only these providers (NAME[,NAME], as `agent-janitor config` names them');
    expect(run).toContain('[choices: "fatal", "error", "warn", "info", "debug", "trace", "silent"] [default: info]');
    expect(run).toContain('0 the pass completed for every enabled provider');
    expect(run).toContain('75 another pass holds the run lock; nothing was done');
    expect(run).toContain(
      'A flag also takes --NAME=true, --NAME=false and --no-NAME; a value that starts with - goes as --NAME=VALUE.',
    );
    expect((await shown(['demo', '--help'])).replace(/\s+/g, ' ')).toContain('[default: warn]');
    expect((await shown(['config', '--help'])).replace(/\s+/g, ' ')).toContain(
      'Exit status: 0 the config is valid; it was printed 2 bad usage, an invalid config or a folder it cannot use, in one line A value that starts with - goes as --NAME=VALUE.',
    );
    expect(await shown(['report', '--help'])).toContain('1   there is no report yet, or it could not be read');
  });

  it('wins over anything else on the line, errors included, but not after --', async () => {
    const run = await shown(['help', 'run']);
    expect(await shown(['run', '--frobnicate', '--log-level', 'loud', 'x', '--help'])).toBe(run);
    expect(await shown(['run', '--config', '--help'])).toBe(run);
    expect(await shown(['run', '--json=yes', '-h'])).toBe(run);
    expect(await shown(['run', '--version', '--help'])).toBe(run);
    expect(await shown(['help', 'help'])).toMatch(/^agent-janitor help \[command\]\n/);
    const after = await runCli(['run', '--', '--help'], { env: enclosedEnv(tempDir('aj-help-')) });
    expect(after).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('the version', () => {
  it('is printed for -V and --version, anywhere on the line, errors and all', async () => {
    for (const args of [
      ['--version'],
      ['-V'],
      ['run', '-V'],
      ['report', '--version'],
      ['run', '--frobnicate', '--log-level', 'loud', '--version'],
      ['nonsense', '-V'],
      ['--config', 'x', '-V', 'demo'],
    ])
      expect(await shown(args), args.join(' ')).toBe(`${VERSION}\n`);
  });
});
