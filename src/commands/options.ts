import type { Argv } from 'yargs';
import { UsageError } from '../core/errors.js';
import { PROVIDER_NAMES, type ProviderName } from '../core/types.js';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';

// Every command's parser is built from this file on each start, `--help` included: it loads no
// config, logging or pass module (those are imported by the command that runs).

export interface PassArgs {
  config?: string;
  home?: string[];
  only?: string[];
  'min-age'?: string;
  'report-dir'?: string;
  'metrics-file'?: string;
  pushgateway?: string;
  json?: boolean;
  'log-level': LogLevel;
}

/** The options `run` and `serve` share. */
export function withPassOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('config', {
      alias: 'c',
      type: 'string',
      describe: 'the YAML config file (default: $AGENT_JANITOR_CONFIG, else built-in defaults)',
    })
    .option('home', { type: 'string', array: true, describe: 'a home to reconcile; repeatable; replaces `homes`' })
    .option('only', {
      type: 'string',
      array: true,
      describe: `run only these providers (${PROVIDER_NAMES.join(', ')}), comma-separated`,
    })
    .option('min-age', { type: 'string', describe: 'replaces `minAge` (a duration: 0s, 30m, 1h, 7d)' })
    .option('report-dir', { type: 'string', describe: 'replaces `reportDir`' })
    .option('metrics-file', { type: 'string', describe: 'replaces `metrics.textfile`' })
    .option('pushgateway', { type: 'string', describe: 'replaces `metrics.pushgateway.url`' })
    .option('log-level', {
      choices: LOG_LEVELS,
      default: 'info' as LogLevel,
      describe: 'pino level; logs go to stderr',
    });
}

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
