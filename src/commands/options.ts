import type { InferredOptionTypes, Options } from 'yargs';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';
import { choiceOf, everyOf, lastOf, listOf } from './option-values.js';

// The options of each command, as yargs reads them and help lists them: a command takes exactly
// the options of its table. Every start loads this file, `--help` included: it loads no provider,
// config, logging or pass module (those are imported by the command that runs), so a name --only
// gives is checked against the registry when the pass starts.

const config = {
  alias: 'c',
  type: 'string',
  describe: 'the YAML config file (FILE)',
  defaultDescription: '$AGENT_JANITOR_CONFIG, else built-in defaults',
  coerce: lastOf('--config FILE'),
} as const satisfies Options;

const home = {
  type: 'string',
  describe: 'a home to reconcile (DIR); repeatable; replaces `homes`',
  coerce: everyOf('--home DIR'),
} as const satisfies Options;

const only = {
  type: 'string',
  describe: 'only these providers (NAME[,NAME], as `agent-janitor config` names them under `providers`); repeatable',
  defaultDescription: 'all enabled',
  coerce: listOf('--only NAME[,NAME]'),
} as const satisfies Options;

const minAge = {
  type: 'string',
  describe: 'replaces `minAge` (DURATION: 0s, 30m, 1h, 7d)',
  coerce: lastOf('--min-age DURATION'),
} as const satisfies Options;

const reportDir = {
  type: 'string',
  describe: 'replaces `reportDir` (DIR)',
  coerce: lastOf('--report-dir DIR'),
} as const satisfies Options;

const metricsFile = {
  type: 'string',
  describe: 'replaces `metrics.textfile` (FILE)',
  coerce: lastOf('--metrics-file FILE'),
} as const satisfies Options;

const pushgateway = {
  type: 'string',
  describe: 'replaces `metrics.pushgateway.url` (URL)',
  coerce: lastOf('--pushgateway URL'),
} as const satisfies Options;

/** The level of each command that logs, when --log-level is not given. */
export const LOG_LEVEL = { run: 'info', serve: 'info', demo: 'warn' } as const satisfies Record<string, LogLevel>;

// No yargs default: yargs gives it to a `--log-level` written without its value.
const logLevel = (fallback: LogLevel) =>
  ({
    type: 'string',
    describe: 'pino level (LEVEL); logs go to stderr as JSON lines, readable lines on a terminal',
    choices: LOG_LEVELS,
    defaultDescription: fallback,
    coerce: choiceOf('--log-level LEVEL', LOG_LEVELS),
  }) as const satisfies Options;

const reportOnly = {
  alias: 'dry-run',
  type: 'boolean',
  describe: 'change nothing on disk (the report directory and metrics file excepted)',
} as const satisfies Options;

/** The config file and what the command line puts in place of its keys. */
const CONFIG_KEYS = {
  config,
  home,
  'min-age': minAge,
  'report-dir': reportDir,
  'metrics-file': metricsFile,
  pushgateway,
} as const;

export const RUN_OPTIONS = {
  ...CONFIG_KEYS,
  only,
  'report-only': reportOnly,
  json: { type: 'boolean', describe: 'print the report JSON (as report.json) on stdout instead of the summary' },
  'log-level': logLevel(LOG_LEVEL.run),
} as const satisfies Record<string, Options>;

export const SERVE_OPTIONS = {
  ...CONFIG_KEYS,
  only,
  'report-only': reportOnly,
  listen: {
    type: 'string',
    describe: 'replaces `serve.listen`, the address of the HTTP server (HOST:PORT)',
    coerce: lastOf('--listen HOST:PORT'),
  },
  'log-level': logLevel(LOG_LEVEL.serve),
} as const satisfies Record<string, Options>;

/** `report` reads the report directory: the config names it, or --report-dir does. */
export const REPORT_OPTIONS = {
  config,
  'report-dir': reportDir,
  json: { type: 'boolean', describe: 'print report.json instead of report.md' },
} as const satisfies Record<string, Options>;

export const CONFIG_OPTIONS = CONFIG_KEYS satisfies Record<string, Options>;

export const DEMO_OPTIONS = {
  dir: {
    type: 'string',
    describe: 'an absent or empty folder for the sandbox (DIR)',
    defaultDescription: 'a new temporary folder',
    coerce: lastOf('--dir DIR'),
  },
  'log-level': logLevel(LOG_LEVEL.demo),
} as const satisfies Record<string, Options>;

/** What each command is handed: the types follow the tables above. */
export type ConfigArgs = InferredOptionTypes<typeof CONFIG_OPTIONS>;
export type RunArgs = InferredOptionTypes<typeof RUN_OPTIONS>;
export type ServeArgs = InferredOptionTypes<typeof SERVE_OPTIONS>;
export type ReportArgs = InferredOptionTypes<typeof REPORT_OPTIONS>;
export type DemoArgs = InferredOptionTypes<typeof DEMO_OPTIONS>;
