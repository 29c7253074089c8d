import type { Argv, Options } from 'yargs';
// yargs's factory (no singleton read of process.argv), built as CommonJS: its ES module build lays
// help out with a wrap of its own that cuts words in two.
import yargs from 'yargs/yargs';
import { UsageError } from '../model/errors.js';
import { VERSION } from '../util/version.js';
import { refuseFlagValues } from './flag-values.js';
import {
  ALL_COMMANDS_EPILOGUE,
  COMMAND_HELP,
  type CommandHelp,
  type CommandName,
  exitCodesText,
  HELP_SUMMARY,
  valueForms,
} from './help.js';
import {
  CONFIG_OPTIONS,
  type ConfigArgs,
  DEMO_OPTIONS,
  type DemoArgs,
  REPORT_OPTIONS,
  type ReportArgs,
  RUN_OPTIONS,
  type RunArgs,
  SERVE_OPTIONS,
  type ServeArgs,
} from './options.js';

/** What a command line asks for, once yargs has read it: a command and its options. */
export type Invocation =
  | { command: 'run'; args: RunArgs }
  | { command: 'serve'; args: ServeArgs }
  | { command: 'report'; args: ReportArgs }
  | { command: 'config'; args: ConfigArgs }
  | { command: 'demo'; args: DemoArgs };

const OPTIONS = {
  run: RUN_OPTIONS,
  serve: SERVE_OPTIONS,
  report: REPORT_OPTIONS,
  demo: DEMO_OPTIONS,
  config: CONFIG_OPTIONS,
} as const satisfies Record<CommandName, Record<string, Options>>;

const NAMES = Object.keys(COMMAND_HELP) as CommandName[];
const THE_COMMANDS = `the commands are ${[...NAMES, 'help'].join(', ')}`;
const WIDTH = 80;

/**
 * Reads the arguments after `node` and the script with yargs. Help (`-h`, `--help`, `help
 * [command]`) and the version (`-V`, `--version`) are printed on stdout, anywhere on the line, and
 * answer null; anything else that is not a command and its own options is a UsageError of one line.
 */
export function readCommandLine(argv: readonly string[]): Invocation | null {
  let invocation: Invocation | null = null;
  let helpOn: CommandName | 'all' | null = null;
  let failure: UsageError | undefined;
  const parser = yargs([...argv])
    .scriptName('agent-janitor')
    .locale('en')
    .updateStrings(WORDING)
    .parserConfiguration(PARSING)
    // Options may come before the command: the first read must know which take a value.
    .options(ANY_COMMAND)
    .usage('Usage: $0 <command> [options]')
    .command(
      'help [command]',
      HELP_SUMMARY,
      (y) =>
        y
          .positional('command', { type: 'string', describe: 'a command', coerce: commandNamed })
          .updateStrings(wording({ 'Unknown argument: %s': unknownArguments('help') }))
          .strictCommands(false),
      (args) => {
        helpOn = args.command ?? 'all';
      },
    )
    .strict()
    .strictCommands()
    .demandCommand(1, `name a command: ${THE_COMMANDS}`)
    .epilogue(ALL_COMMANDS_EPILOGUE)
    // Help and the version win over any error on the line: yargs prints them, then reads on.
    .fail((message, err) => {
      failure ??= new UsageError(withSuggestion(oneLine(err?.message || message)));
    })
    .help('help')
    .alias('help', 'h')
    .describe('help', 'this help')
    .version(VERSION)
    .alias('version', 'V')
    .describe('version', 'the version')
    .wrap(WIDTH)
    .exitProcess(false);
  for (const name of NAMES)
    parser.command(
      name,
      COMMAND_HELP[name].summary,
      (y) => commandOptions(y, name, argv),
      (args) => {
        // yargs read these args by OPTIONS[name]: they have the type of that table.
        invocation = { command: name, args } as unknown as Invocation;
      },
    );
  const asked = parser.parseSync();
  if (asked.help || asked.version) return null;
  if (failure) throw failure;
  if (helpOn === null) return invocation;
  readCommandLine(helpOn === 'all' ? ['--help'] : [helpOn, '--help']);
  return null;
}

function commandOptions(y: Argv, name: CommandName, argv: readonly string[]): Argv {
  const help: CommandHelp = COMMAND_HELP[name];
  return (
    y
      .usage(`Usage: $0 ${name} [options]\n\n${help.summary}`)
      .options(OPTIONS[name])
      // The command's own options first, then -h and -V.
      .group(Object.keys(OPTIONS[name]), 'Options:')
      .updateStrings(wording({ 'Unknown argument: %s': unknownArguments(name) }))
      .strictCommands(false)
      .check((args) => {
        // yargs leaves what follows `--` to the command, and a command takes options only.
        const [, extra] = args._;
        if (extra !== undefined) throw new UsageError(unknownArguments(name).one.replace('%s', String(extra)));
        return refuseFlagValues(argv, OPTIONS[name]);
      })
      .example(...help.example)
      .epilogue(`${exitCodesText(help)}\n\n${valueForms(hasFlags(OPTIONS[name]))}`)
  );
}

const unknownArguments = (name: CommandName | 'help') => ({
  one: `unknown argument %s for ${name} (agent-janitor help ${name} lists its options)`,
  other: `unknown arguments %s for ${name} (agent-janitor help ${name} lists its options)`,
});

const hasFlags = (table: Readonly<Record<string, Options>>) =>
  Object.values(table).some((option) => option.type === 'boolean');

function commandNamed(given: string | undefined): CommandName | undefined {
  if (given === undefined || (NAMES as string[]).includes(given)) return given as CommandName | undefined;
  throw new UsageError(unknownCommand(given));
}

const unknownCommand = (given: string): string => {
  const near = nearestCommand(given);
  return `unknown command ${given}${near ? ` (did you mean ${near}?)` : ''}; ${THE_COMMANDS}`;
};

/** yargs words an unknown command by WORDING; the one it names gets the command it may have meant. */
function withSuggestion(message: string): string {
  const given = /^unknown command (\S+); /.exec(message)?.[1];
  return given === undefined ? message : unknownCommand(given);
}

/** How far a typo may be from a command (letters added, dropped or changed) for it to be suggested. */
const SUGGEST_WITHIN = 2;

/** The command nearest to `given` by edit distance, when one is near enough (`rn` → `run`); the first of equals. */
function nearestCommand(given: string): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of [...NAMES, 'help']) {
    const distance = editDistance(given.toLowerCase(), name);
    if (distance <= SUGGEST_WITHIN && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Levenshtein distance: the fewest letters added, dropped or changed to make `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, k) => k);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const change = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, change));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * yargs's own reading, but for: option names only as written (no camelCase twin, no dotted
 * objects), values kept as strings, and an unknown option kept as written so that the error names
 * it the way the user typed it.
 */
const PARSING = {
  'camel-case-expansion': false,
  'dot-notation': false,
  'parse-numbers': false,
  'parse-positional-numbers': false,
  'unknown-options-as-args': true,
} as const;

/** A message yargs counts has a form for one and for several, as in yargs's own locale files. */
type Wording = Record<string, string | { one: string; other: string }>;

/** yargs's types know only the messages it does not count; y18n takes both kinds. */
const wording = (strings: Wording) => strings as Record<string, string>;

const WORDING = wording({
  'Unknown command: %s': { one: `unknown command %s; ${THE_COMMANDS}`, other: `unknown commands %s; ${THE_COMMANDS}` },
});

/**
 * Every option of every command, with only its type: enough for the first read, before the
 * command is known, to tell an option's value from the command. The command's own read replaces
 * these (they are not global) with its own table, which alone decides what it accepts.
 */
const ANY_COMMAND: Record<string, Options> = (() => {
  const typed: Record<string, Options> = {};
  for (const table of Object.values(OPTIONS) as Record<string, Options>[])
    for (const [key, option] of Object.entries(table)) {
      if (typed[key] && typed[key].type !== option.type)
        throw new Error(`--${key} is a ${typed[key].type} in one command and a ${option.type} in another`);
      typed[key] = { type: option.type, alias: option.alias, hidden: true, global: false };
    }
  return typed;
})();

/** yargs lays some errors out on several lines; the command line's errors are one. */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}
