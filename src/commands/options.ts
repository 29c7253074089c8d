import { UsageError } from '../core/errors.js';
import { PROVIDER_NAMES, type ProviderName } from '../core/types.js';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';

// The options of each command as data: src/commands/args.ts parses by them and
// src/commands/help.ts prints them. Every start loads this file, `--help` included: it loads no
// config, logging or pass module (those are imported by the command that runs).

/**
 * One option. `flag`: `--name`, `--name=true|false`, `--no-name`. `string`: one value, and the
 * last one given wins. `list`: repeatable, every value kept in order. `choice`: one of `choices`.
 * `value` names the value in the help text.
 */
export type OptionSpec =
  | { readonly kind: 'flag'; readonly describe: string; readonly aliases?: readonly string[] }
  | {
      readonly kind: 'string';
      readonly value: string;
      readonly describe: string;
      readonly short?: string;
    }
  | { readonly kind: 'list'; readonly value: string; readonly describe: string }
  | {
      readonly kind: 'choice';
      readonly value: string;
      readonly describe: string;
      readonly choices: readonly string[];
      readonly default: string;
    };

export type OptionTable = Readonly<Record<string, OptionSpec>>;

type ValueOf<S> = S extends { kind: 'flag' }
  ? boolean
  : S extends { kind: 'list' }
    ? string[]
    : S extends { choices: readonly (infer C)[] }
      ? C
      : string;
type WithDefault<T> = { [K in keyof T]: T[K] extends { default: string } ? K : never }[keyof T];

/** What the parser hands a command for a table: an option with a default is always there. */
export type ArgsOf<T> = { -readonly [K in WithDefault<T>]: ValueOf<T[K]> } & {
  -readonly [K in Exclude<keyof T, WithDefault<T>>]?: ValueOf<T[K]>;
};

const logLevel = (fallback: LogLevel) =>
  ({
    kind: 'choice',
    value: 'LEVEL',
    choices: LOG_LEVELS,
    default: fallback,
    describe: 'pino level; logs go to stderr',
  }) as const;

const reportOnly = {
  kind: 'flag',
  aliases: ['dry-run'],
  describe: 'change nothing on disk (the report directory and metrics file excepted)',
} as const;

/** The options `run`, `serve`, `report` and `config` share. */
const PASS_OPTIONS = {
  config: {
    kind: 'string',
    short: 'c',
    value: 'FILE',
    describe: 'the YAML config file (default: $AGENT_JANITOR_CONFIG, else built-in defaults)',
  },
  home: { kind: 'list', value: 'DIR', describe: 'a home to reconcile; repeatable; replaces `homes`' },
  only: {
    kind: 'list',
    value: 'NAME[,NAME]',
    describe: `run only these providers (${PROVIDER_NAMES.join(', ')}), comma-separated; repeatable`,
  },
  'min-age': { kind: 'string', value: 'DURATION', describe: 'replaces `minAge` (a duration: 0s, 30m, 1h, 7d)' },
  'report-dir': { kind: 'string', value: 'DIR', describe: 'replaces `reportDir`' },
  'metrics-file': { kind: 'string', value: 'FILE', describe: 'replaces `metrics.textfile`' },
  pushgateway: { kind: 'string', value: 'URL', describe: 'replaces `metrics.pushgateway.url`' },
  'log-level': logLevel('info'),
} as const;

export const RUN_OPTIONS = {
  ...PASS_OPTIONS,
  'report-only': reportOnly,
  json: { kind: 'flag', describe: 'print the report JSON on stdout instead of the summary' },
} as const satisfies OptionTable;

export const SERVE_OPTIONS = {
  ...PASS_OPTIONS,
  listen: { kind: 'string', value: 'HOST:PORT', describe: 'the address of the HTTP server; replaces `serve.listen`' },
  'report-only': reportOnly,
} as const satisfies OptionTable;

export const REPORT_OPTIONS = {
  ...PASS_OPTIONS,
  json: { kind: 'flag', describe: 'print the report JSON instead of its Markdown' },
} as const satisfies OptionTable;

export const CONFIG_OPTIONS = PASS_OPTIONS satisfies OptionTable;

export const DEMO_OPTIONS = {
  dir: {
    kind: 'string',
    value: 'DIR',
    describe: 'an absent or empty folder for the sandbox (default: a new temporary one)',
  },
  'log-level': logLevel('warn'),
} as const satisfies OptionTable;

/** What each command is handed: the types follow the tables above. */
export type PassArgs = ArgsOf<typeof PASS_OPTIONS>;
export type RunArgs = ArgsOf<typeof RUN_OPTIONS>;
export type ServeArgs = ArgsOf<typeof SERVE_OPTIONS>;
export type ReportArgs = ArgsOf<typeof REPORT_OPTIONS>;

export function parseOnly(values: readonly string[] | undefined): ProviderName[] | undefined {
  if (!values || values.length === 0) return undefined;
  const names = values
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`--only: unknown provider ${JSON.stringify(name)} (known: ${PROVIDER_NAMES.join(', ')})`);
    }
  }
  return names as ProviderName[];
}
