import { UsageError } from '../core/errors.js';
import {
  type ArgsOf,
  CONFIG_OPTIONS,
  DEMO_OPTIONS,
  type OptionSpec,
  type OptionTable,
  REPORT_OPTIONS,
  RUN_OPTIONS,
  SERVE_OPTIONS,
} from './options.js';

/** The commands, in the order help lists them, with the line help gives each. */
export const COMMANDS = {
  run: { summary: 'one reconcile pass over every enabled provider, then exit', options: RUN_OPTIONS },
  serve: {
    summary: 'long-running: passes on the cron schedule, HTTP /metrics, /healthz and /report',
    options: SERVE_OPTIONS,
  },
  report: { summary: 'print the latest report (Markdown, or JSON with --json)', options: REPORT_OPTIONS },
  config: { summary: 'validate the config and print the effective config as YAML', options: CONFIG_OPTIONS },
  demo: { summary: 'build a realistic sandbox, run a report-only pass and a real pass on it', options: DEMO_OPTIONS },
} as const;

export type CommandName = keyof typeof COMMANDS;

/** What a command line asks for: help (on one command, or on all), the version, or a command to run. */
export type Invocation =
  | { action: 'help'; command: CommandName | undefined }
  | { action: 'version' }
  | {
      [C in CommandName]: { action: 'command'; command: C; args: ArgsOf<(typeof COMMANDS)[C]['options']> };
    }[CommandName];

const COMMAND_LIST = 'run, serve, report, demo and config';
const NAME_A_COMMAND = 'name a command: run, serve, report, demo or config';

/**
 * Reads the arguments after `node` and the script. The command is the first positional argument;
 * options may come before or after it. `--help` or `--version` anywhere before `--` wins over
 * anything else on the line, errors included (`--help` over `--version`). Anything else that is not
 * an option of the command (an unknown option, a second positional, anything after `--`) is a
 * UsageError of one line naming it; so is a string option without its value. A value that starts
 * with `-` goes in the `--name=VALUE` form. A string option given twice keeps the last value.
 */
export function parseCommandLine(argv: readonly string[]): Invocation {
  const end = argv.indexOf('--');
  const options = end < 0 ? argv : argv.slice(0, end);
  const words = wordsOf(options, ANY_COMMAND);
  const first = words.find((word) => word.kind === 'positional');
  const command = first && isCommandName(first.text) ? first.text : undefined;
  if (options.includes('--help')) return { action: 'help', command };
  if (options.includes('--version')) return { action: 'version' };
  if (!first) throw new UsageError(NAME_A_COMMAND);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(first.text)}; the commands are ${COMMAND_LIST}`);
  const afterDashes: Word[] = end < 0 ? [] : argv.slice(end + 1).map((text) => ({ kind: 'positional', text }));
  const rest = [...words.filter((word) => word !== first), ...afterDashes];
  // One case per command, so that each result has its own command's args type.
  switch (command) {
    case 'run':
      return { action: 'command', command, args: readOptions(command, COMMANDS.run.options, rest) };
    case 'serve':
      return { action: 'command', command, args: readOptions(command, COMMANDS.serve.options, rest) };
    case 'report':
      return { action: 'command', command, args: readOptions(command, COMMANDS.report.options, rest) };
    case 'config':
      return { action: 'command', command, args: readOptions(command, COMMANDS.config.options, rest) };
    case 'demo':
      return { action: 'command', command, args: readOptions(command, COMMANDS.demo.options, rest) };
  }
}

function isCommandName(text: string): text is CommandName {
  return Object.hasOwn(COMMANDS, text);
}

/** An argument, or an option with the value written in it (`inline`) or taken from the next argument. */
type Word =
  | { kind: 'positional'; text: string }
  | { kind: 'option'; written: string; inline: string | undefined; next: string | undefined };

interface Spelled {
  name: string;
  spec: OptionSpec;
}

/** Every way to write an option of the table but `--no-`: `--name`, `--alias`, `-s`. */
function spellingsOf(table: OptionTable): Map<string, Spelled> {
  const spellings = new Map<string, Spelled>();
  for (const [name, spec] of Object.entries(table)) {
    spellings.set(`--${name}`, { name, spec });
    if (spec.kind === 'flag') for (const alias of spec.aliases ?? []) spellings.set(`--${alias}`, { name, spec });
    if (spec.kind === 'string' && spec.short) spellings.set(`-${spec.short}`, { name, spec });
  }
  return spellings;
}

/**
 * Every command's spellings together, to tell an option's value from the command before the
 * command is known: an option spelled the same way in two commands takes a value in both or in
 * neither (test/cli/args.unit.test.ts holds the tables to that).
 */
const ANY_COMMAND = new Map(Object.values(COMMANDS).flatMap(({ options }) => [...spellingsOf(options)]));

function lookUp(
  spellings: ReadonlyMap<string, Spelled>,
  written: string,
): (Spelled & { negated: boolean }) | undefined {
  const spelled = spellings.get(written);
  if (spelled) return { ...spelled, negated: false };
  const negated = written.startsWith('--no-') ? spellings.get(`--${written.slice('--no-'.length)}`) : undefined;
  return negated?.spec.kind === 'flag' ? { ...negated, negated: true } : undefined;
}

const takesValue = (spelled: Spelled | undefined) => spelled !== undefined && spelled.spec.kind !== 'flag';
/** `-` alone is a value (a path, say); anything else that starts with `-` is not taken as one. */
const looksLikeOption = (arg: string) => arg.startsWith('-') && arg !== '-';

function wordsOf(args: readonly string[], spellings: ReadonlyMap<string, Spelled>): Word[] {
  const words: Word[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (!looksLikeOption(arg)) {
      words.push({ kind: 'positional', text: arg });
      continue;
    }
    const { written, inline } = splitOption(arg, spellings);
    const following = args[at + 1];
    const next =
      inline === undefined &&
      takesValue(lookUp(spellings, written)) &&
      following !== undefined &&
      !looksLikeOption(following)
        ? following
        : undefined;
    if (next !== undefined) at++;
    words.push({ kind: 'option', written, inline, next });
  }
  return words;
}

/** `--name=value` and `-c=value` at their `=`, and `-cvalue` after a short option that takes a value. */
function splitOption(arg: string, spellings: ReadonlyMap<string, Spelled>): { written: string; inline?: string } {
  if (arg.startsWith('--')) {
    const equals = arg.indexOf('=');
    return equals < 0 ? { written: arg } : { written: arg.slice(0, equals), inline: arg.slice(equals + 1) };
  }
  const short = arg.slice(0, 2);
  if (arg.length === 2 || !takesValue(spellings.get(short))) return { written: arg };
  const rest = arg.slice(2);
  return { written: short, inline: rest.startsWith('=') ? rest.slice(1) : rest };
}

type Value = string | boolean | string[];

function readOptions<T extends OptionTable>(command: CommandName, table: T, words: readonly Word[]): ArgsOf<T> {
  const spellings = spellingsOf(table);
  const values: Record<string, Value> = {};
  for (const [name, spec] of Object.entries(table)) if (spec.kind === 'choice') values[name] = spec.default;
  for (const word of words) {
    if (word.kind === 'positional')
      throw new UsageError(`unexpected argument ${JSON.stringify(word.text)}: ${command} takes options only`);
    const option = lookUp(spellings, word.written);
    if (!option)
      throw new UsageError(
        `unknown option ${word.written} for ${command} (agent-janitor ${command} --help lists them)`,
      );
    values[option.name] = readValue(option, word, values[option.name]);
  }
  // The values were read by this very table: each has the type its spec gives it.
  return values as ArgsOf<T>;
}

function readValue(
  { spec, negated }: Spelled & { negated: boolean },
  word: Extract<Word, { kind: 'option' }>,
  earlier: Value | undefined,
): Value {
  const { written, inline } = word;
  if (spec.kind === 'flag') {
    if (inline === undefined) return !negated;
    if (negated) throw new UsageError(`${written} takes no value, got ${JSON.stringify(inline)}`);
    if (inline === 'true' || inline === 'false') return inline === 'true';
    throw new UsageError(`${written} takes true or false, got ${JSON.stringify(inline)}`);
  }
  const value = inline ?? word.next;
  if (value === undefined || value === '') throw new UsageError(`${written} needs a value: ${written} ${spec.value}`);
  switch (spec.kind) {
    case 'string':
      return value;
    case 'list':
      return [...(Array.isArray(earlier) ? earlier : []), value];
    case 'choice':
      if (!spec.choices.includes(value))
        throw new UsageError(`${written}: ${JSON.stringify(value)} is not one of ${spec.choices.join(', ')}`);
      return value;
  }
}
