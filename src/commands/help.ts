// What help says of each command beside its options: a line on what it does, an example, and
// its exit codes. src/commands/args.ts hands these to yargs, which lays the help out.

export interface CommandHelp {
  /** The line the command list gives it, and the first of its own help. */
  summary: string;
  example: readonly [command: string, what: string];
  exitCodes: readonly (readonly [code: number, meaning: string])[];
}

const USAGE = [2, 'bad usage, an invalid config or a folder it cannot use; nothing done'] as const;

export const COMMAND_HELP = {
  run: {
    summary: 'one reconcile pass over every enabled provider, then exit',
    example: ['agent-janitor run --report-only', 'what a pass would delete from your home, changing nothing'],
    exitCodes: [
      [0, 'the pass completed for every enabled provider (refusals are outcomes)'],
      [1, 'done, but a provider could not be reconciled or an action failed'],
      USAGE,
      [75, 'another pass holds the run lock; nothing was done'],
      [130, 'stopped by Ctrl-C (SIGINT); the next pass finishes what it started'],
      [143, 'stopped by SIGTERM; the next pass finishes what it started'],
    ],
  },
  serve: {
    summary: 'passes on the cron schedule, with HTTP /metrics, /healthz and /report',
    example: ['agent-janitor serve --report-only', 'passes that only report, and their metrics'],
    exitCodes: [
      [0, 'stopped by SIGTERM or SIGINT, the pass under way finished'],
      [1, 'the HTTP server could not listen, or a pass broke'],
      USAGE,
    ],
  },
  report: {
    summary: 'print the latest report (Markdown, or JSON with --json)',
    example: ['agent-janitor report --json', 'the latest report.json, as the pass wrote it'],
    exitCodes: [[0, 'the report was printed'], [1, 'there is no report yet, or it could not be read'], USAGE],
  },
  demo: {
    summary: 'build a sandbox, run a report-only pass and a real pass on it',
    example: ['agent-janitor demo --dir /tmp/demo', 'build the sandbox there, and keep it'],
    exitCodes: [
      [0, 'both passes completed'],
      [1, 'a pass could not reconcile a provider or an action failed'],
      [2, 'bad usage, or a folder it cannot use or that is not empty'],
    ],
  },
  config: {
    summary: 'validate the config and print the effective config as YAML',
    example: ['agent-janitor config -c my.yaml', 'check a file before installing it'],
    exitCodes: [
      [0, 'the config is valid; it was printed'],
      [2, 'bad usage, an invalid config or a folder it cannot use, in one line'],
    ],
  },
} as const satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMAND_HELP;

export const HELP_SUMMARY = 'show the help of a command, or this list';

/** Below a command's options: the forms yargs reads besides `--name value`. */
export const valueForms = (hasFlags: boolean) =>
  `${hasFlags ? 'A flag also takes --NAME=true, --NAME=false and --no-NAME; a' : 'A'} value that starts with - goes as --NAME=VALUE.`;

export const ALL_COMMANDS_EPILOGUE =
  "`agent-janitor help <command>` (or `agent-janitor <command> --help`) lists a command's options, exit codes and an example.";

export function exitCodesText(help: CommandHelp): string {
  const rows = help.exitCodes.map(([code, meaning]) => `  ${String(code).padEnd(4)}${meaning}`);
  return ['Exit status:', ...rows].join('\n');
}
