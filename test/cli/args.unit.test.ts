import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandName, type Invocation, parseCommandLine } from '../../src/commands/args.js';
import { helpText } from '../../src/commands/help.js';
import { LOG_LEVELS } from '../../src/commands/log-levels.js';
import type { OptionSpec } from '../../src/commands/options.js';
import { UsageError } from '../../src/core/errors.js';

/** The command and args a command line runs; fails the test if it asks for help or the version. */
function parsed(argv: string[]): { command: CommandName; args: Record<string, unknown> } {
  const invocation = parseCommandLine(argv);
  if (invocation.action !== 'command') throw new Error(`${argv.join(' ')}: asked for ${invocation.action}`);
  return { command: invocation.command, args: invocation.args };
}

const argsOf = (argv: string[]) => parsed(argv).args;

/** The message of the UsageError a command line is refused with; it must be one line. */
function refusal(argv: string[]): string {
  let thrown: unknown;
  try {
    parseCommandLine(argv);
  } catch (err) {
    thrown = err;
  }
  expect(thrown, argv.join(' ')).toBeInstanceOf(UsageError);
  const { message } = thrown as UsageError;
  expect(message, argv.join(' ')).not.toContain('\n');
  return message;
}

const PASS_DEFAULTS = { 'log-level': 'info' };

describe('parseCommandLine: what each form of an option gives the command', () => {
  it('takes a string option as --name value, --name=value, -c value, -c=value and -cvalue', () => {
    for (const form of [['--config', 'a.yaml'], ['--config=a.yaml'], ['-c', 'a.yaml'], ['-c=a.yaml'], ['-ca.yaml']])
      expect(parsed(['run', ...form]), form.join(' ')).toEqual({
        command: 'run',
        args: { ...PASS_DEFAULTS, config: 'a.yaml' },
      });
  });

  it('gives each string option of the pass commands its own key, in both forms', () => {
    const options = { 'min-age': '2h', 'report-dir': '/r', 'metrics-file': '/m.prom', pushgateway: 'http://p:9091' };
    for (const command of ['run', 'serve', 'report', 'config'] as const) {
      const spaced = Object.entries(options).flatMap(([name, value]) => [`--${name}`, value]);
      const joined = Object.entries(options).map(([name, value]) => `--${name}=${value}`);
      for (const argv of [spaced, joined])
        expect(parsed([command, ...argv])).toEqual({ command, args: { ...PASS_DEFAULTS, ...options } });
    }
  });

  it('keeps every value of a repeatable option in order, and --only as written (parseOnly splits it)', () => {
    expect(argsOf(['config', '--home', '/a', '--home=/b,/c', '--only', 'kilo,owl', '--only=cline'])).toEqual({
      ...PASS_DEFAULTS,
      home: ['/a', '/b,/c'],
      only: ['kilo,owl', 'cline'],
    });
  });

  it('keeps the last value of a string option given twice', () => {
    expect(argsOf(['run', '--min-age', '1h', '--min-age=2h', '-c', 'a', '--config', 'b'])).toEqual({
      ...PASS_DEFAULTS,
      'min-age': '2h',
      config: 'b',
    });
  });

  it('takes a flag as --name, --name=true, --name=false and --no-name, the last one given winning', () => {
    const json = (...flags: string[]) => argsOf(['run', ...flags]).json;
    expect(json('--json')).toBe(true);
    expect(json('--json=true')).toBe(true);
    expect(json('--json=false')).toBe(false);
    expect(json('--no-json')).toBe(false);
    expect(json('--json', '--json')).toBe(true);
    expect(json('--json', '--no-json')).toBe(false);
    expect(json('--no-json', '--json=true')).toBe(true);
    expect(json()).toBeUndefined();
  });

  it('reads --dry-run as --report-only, in every form, for run and serve', () => {
    for (const command of ['run', 'serve'] as const) {
      expect(argsOf([command, '--dry-run'])).toEqual({ ...PASS_DEFAULTS, 'report-only': true });
      expect(argsOf([command, '--report-only'])).toEqual({ ...PASS_DEFAULTS, 'report-only': true });
      expect(argsOf([command, '--dry-run=false'])['report-only']).toBe(false);
      expect(argsOf([command, '--report-only', '--no-dry-run'])['report-only']).toBe(false);
    }
  });

  it("gives serve its --listen, report its --json and demo its --dir, and each command's log-level default", () => {
    expect(parsed(['serve', '--listen', '127.0.0.1:9000', '--report-only'])).toEqual({
      command: 'serve',
      args: { ...PASS_DEFAULTS, listen: '127.0.0.1:9000', 'report-only': true },
    });
    expect(parsed(['report', '--json'])).toEqual({ command: 'report', args: { ...PASS_DEFAULTS, json: true } });
    expect(parsed(['demo', '--dir', '/tmp/d'])).toEqual({
      command: 'demo',
      args: { 'log-level': 'warn', dir: '/tmp/d' },
    });
    expect(parsed(['demo'])).toEqual({ command: 'demo', args: { 'log-level': 'warn' } });
    expect(parsed(['config'])).toEqual({ command: 'config', args: PASS_DEFAULTS });
  });

  it('takes every log level, in both forms, for every command', () => {
    for (const command of Object.keys(COMMANDS) as CommandName[])
      for (const level of LOG_LEVELS) {
        expect(argsOf([command, '--log-level', level])['log-level']).toBe(level);
        expect(argsOf([command, `--log-level=${level}`])['log-level']).toBe(level);
      }
  });

  it('finds the command after options that come before it, their values included', () => {
    expect(parsed(['--config', 'run', 'config'])).toEqual({
      command: 'config',
      args: { ...PASS_DEFAULTS, config: 'run' },
    });
    expect(parsed(['--json', 'report', '--home', 'demo'])).toEqual({
      command: 'report',
      args: { ...PASS_DEFAULTS, json: true, home: ['demo'] },
    });
  });

  it('takes `-` alone as a value, and a value that starts with - in the --name=value form', () => {
    expect(argsOf(['run', '--report-dir', '-'])['report-dir']).toBe('-');
    expect(argsOf(['run', '--min-age=-1h'])['min-age']).toBe('-1h');
    expect(argsOf(['run', '-c=-x']).config).toBe('-x');
    expect(argsOf(['run', '--home=--json'])).toEqual({ ...PASS_DEFAULTS, home: ['--json'] });
  });

  it('reads every option of every command by its table', () => {
    for (const [command, { options }] of Object.entries(COMMANDS) as [CommandName, { options: object }][])
      for (const [name, spec] of Object.entries(options) as [string, OptionSpec][]) {
        const value = spec.kind === 'choice' ? (spec.choices[0] as string) : 'v';
        const expected = spec.kind === 'flag' ? true : spec.kind === 'list' ? [value] : value;
        const argv = spec.kind === 'flag' ? [command, `--${name}`] : [command, `--${name}`, value];
        expect(argsOf(argv)[name], argv.join(' ')).toEqual(expected);
      }
  });
});

describe('parseCommandLine: what it refuses, in one line naming what is wrong', () => {
  it('wants exactly one known command', () => {
    expect(refusal([])).toBe('name a command: run, serve, report, demo or config');
    expect(refusal(['--config', 'a.yaml'])).toBe('name a command: run, serve, report, demo or config');
    expect(refusal(['--', 'run'])).toBe('name a command: run, serve, report, demo or config');
    expect(refusal(['nonsense'])).toBe(
      'unknown command "nonsense"; the commands are run, serve, report, demo and config',
    );
    expect(refusal(['run', 'report'])).toBe('unexpected argument "report": run takes options only');
  });

  it('refuses a positional argument after the command, or anything after --', () => {
    expect(refusal(['run', 'x'])).toContain('"x"');
    expect(refusal(['run', '--json', 'x', 'y'])).toContain('"x"');
    expect(refusal(['run', '--', 'x'])).toContain('"x"');
    expect(refusal(['run', '--', '--json'])).toContain('"--json"');
    expect(refusal(['run', '--', '--help'])).toContain('"--help"');
  });

  it('refuses an option the command does not have, naming it and the command', () => {
    expect(refusal(['run', '--frobnicate'])).toBe(
      'unknown option --frobnicate for run (agent-janitor run --help lists them)',
    );
    for (const [argv, named] of [
      [['config', '--json'], '--json'],
      [['config', '--report-only'], '--report-only'],
      [['report', '--dry-run'], '--dry-run'],
      [['run', '--listen', 'h:1'], '--listen'],
      [['demo', '--config', 'a'], '--config'],
      [['demo', '-ca'], '-c'],
      [['run', '-x'], '-x'],
      [['run', '-xyz'], '-xyz'],
      [['run', '--no-config'], '--no-config'],
      [['run', '--Json'], '--Json'],
      [['run', '--reportOnly'], '--reportOnly'],
      [['run', '-'], '"-"'],
    ] as const) {
      const message = refusal([...argv]);
      expect(message, argv.join(' ')).toContain(named);
      expect(message, argv.join(' ')).toContain(argv[0]);
    }
  });

  it('refuses a string option without its value, naming it', () => {
    for (const [argv, named] of [
      [['run', '--config'], '--config'],
      [['run', '--config', '--json'], '--config'],
      [['run', '-c'], '-c'],
      [['run', '-c='], '-c'],
      [['run', '--home='], '--home'],
      [['run', '--home', '-x'], '--home'],
      [['run', '--only'], '--only'],
      [['run', '--log-level'], '--log-level'],
      [['serve', '--listen'], '--listen'],
      [['demo', '--dir'], '--dir'],
    ] as const)
      expect(refusal([...argv]), argv.join(' ')).toMatch(new RegExp(`^${named} needs a value: ${named} [A-Z]`));
  });

  it('refuses a log level that is not one, naming the option, the value and the choices', () => {
    for (const command of ['run', 'demo'])
      expect(refusal([command, '--log-level', 'loud'])).toBe(
        `--log-level: "loud" is not one of ${LOG_LEVELS.join(', ')}`,
      );
    expect(refusal(['run', '--log-level=INFO'])).toContain('"INFO"');
  });

  it('refuses a flag with a value other than true or false, and a --no- flag with any', () => {
    expect(refusal(['run', '--json=yes'])).toBe('--json takes true or false, got "yes"');
    expect(refusal(['run', '--dry-run='])).toBe('--dry-run takes true or false, got ""');
    expect(refusal(['run', '--no-json=false'])).toBe('--no-json takes no value, got "false"');
  });

  it('names the command before the options, and the first wrong argument of several', () => {
    expect(refusal(['--frobnicate', 'nonsense'])).toContain('"nonsense"');
    expect(refusal(['run', '--frobnicate', '--config'])).toContain('--frobnicate');
    expect(refusal(['run', '--config', '--frobnicate'])).toContain('--config needs a value');
  });
});

describe('parseCommandLine: --help and --version', () => {
  const ask = (argv: string[]): Invocation => parseCommandLine(argv);

  it('asks for help on the command named, or on all, wherever --help stands, over any error', () => {
    expect(ask(['--help'])).toEqual({ action: 'help', command: undefined });
    expect(ask(['run', '--help'])).toEqual({ action: 'help', command: 'run' });
    expect(ask(['--help', 'serve'])).toEqual({ action: 'help', command: 'serve' });
    expect(ask(['--config', 'a', 'demo', '--help'])).toEqual({ action: 'help', command: 'demo' });
    expect(ask(['run', '--frobnicate', '--log-level', 'loud', 'x', '--help'])).toEqual({
      action: 'help',
      command: 'run',
    });
    expect(ask(['nonsense', '--help'])).toEqual({ action: 'help', command: undefined });
    expect(ask(['--version', '--help'])).toEqual({ action: 'help', command: undefined });
  });

  it('asks for the version wherever --version stands before --', () => {
    expect(ask(['--version'])).toEqual({ action: 'version' });
    expect(ask(['run', '--version'])).toEqual({ action: 'version' });
    expect(ask(['run', '--frobnicate', '--version'])).toEqual({ action: 'version' });
    expect(refusal(['run', '--', '--version'])).toContain('"--version"');
  });
});

describe('helpText', () => {
  const lines = (text: string) => text.trimEnd().split('\n');

  it('lists every command with its line, under Commands:', () => {
    const text = helpText(undefined);
    expect(lines(text)[0]).toBe('Usage: agent-janitor <command> [options]');
    expect(text).toContain('\nCommands:\n');
    for (const [name, { summary }] of Object.entries(COMMANDS)) {
      const row = lines(text).findIndex((line) => line.startsWith(`  ${name} `));
      expect(row, name).toBeGreaterThan(0);
      // The summary may be wrapped onto the lines below its command.
      const rest = lines(text)
        .slice(row, row + 3)
        .join(' ')
        .replace(/\s+/g, ' ');
      expect(rest).toContain(summary);
    }
    expect(text).toContain('--help');
    expect(text).toContain('--version');
  });

  it("lists a command's options with their values, descriptions, choices and defaults", () => {
    const run = helpText('run').replace(/\s+/g, ' ');
    expect(run).toContain('Usage: agent-janitor run [options]');
    expect(run).toContain(COMMANDS.run.summary);
    expect(run).toContain('-c, --config FILE the YAML config file');
    expect(run).toContain('--report-only, --dry-run change nothing on disk');
    expect(run).toContain('--only NAME[,NAME] run only these providers');
    expect(run).toContain(`--log-level LEVEL pino level; logs go to stderr (${LOG_LEVELS.join(', ')}; default: info)`);
    expect(run).toContain('--no-NAME');
    expect(helpText('demo')).toContain('default: warn)');
    expect(helpText('serve')).toContain('--listen HOST:PORT');
    expect(helpText('config')).not.toContain('--json');
  });

  it('names every option of every command, and fits in 80 columns', () => {
    for (const [command, { options }] of Object.entries(COMMANDS) as [CommandName, { options: object }][]) {
      const text = helpText(command);
      for (const name of Object.keys(options)) expect(text, command).toContain(`--${name}`);
      for (const line of lines(text)) expect(line.length, line).toBeLessThanOrEqual(80);
    }
    for (const line of lines(helpText(undefined))) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

describe('the option tables', () => {
  it('spell an option the same way in every command that has it: a value in all or in none', () => {
    const kinds = new Map<string, string>();
    for (const { options } of Object.values(COMMANDS))
      for (const [name, spec] of Object.entries(options) as [string, OptionSpec][]) {
        const takesValue = spec.kind === 'flag' ? 'flag' : 'value';
        for (const spelling of [
          `--${name}`,
          ...(spec.kind === 'flag' ? (spec.aliases ?? []).map((alias) => `--${alias}`) : []),
          ...(spec.kind === 'string' && spec.short ? [`-${spec.short}`] : []),
        ]) {
          expect(kinds.get(spelling) ?? takesValue, spelling).toBe(takesValue);
          kinds.set(spelling, takesValue);
        }
      }
    expect(kinds.size).toBeGreaterThan(10);
  });
});
