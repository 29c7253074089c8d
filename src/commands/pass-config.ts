import type { Logger } from 'pino';
import { loadConfig, type ConfigOverrides } from '../config/load.js';
import type { EffectiveConfig } from '../config/schema.js';
import type { ReconcileOptions } from '../reconcile/reconcile.js';
import { PROVIDERS } from '../providers/registry.js';
import type { ConfigArgs, RunArgs } from './options.js';

/** The effective config: the file (or built-in defaults) with the command line's overrides. */
export async function configFromArgs(args: Partial<ConfigArgs>): Promise<EffectiveConfig> {
  const overrides: ConfigOverrides = {};
  if (args.home?.length) overrides.homes = args.home;
  if (args['min-age'] !== undefined) overrides.minAge = args['min-age'];
  if (args['report-dir'] !== undefined) overrides.reportDir = args['report-dir'];
  if (args['metrics-file'] !== undefined) overrides.metricsFile = args['metrics-file'];
  if (args.pushgateway !== undefined) overrides.pushgateway = args.pushgateway;
  return loadConfig({ providers: PROVIDERS, file: args.config, env: process.env, overrides });
}

/** What a pass of `run` or `serve` is given: every provider, and what the command line chose. */
export function passOptionsFrom(
  args: Pick<RunArgs, 'only' | 'report-only'>,
  config: EffectiveConfig,
  log: Logger,
): ReconcileOptions {
  return {
    config,
    providers: PROVIDERS,
    only: args.only,
    reportOnly: Boolean(args['report-only']),
    log,
    env: process.env,
  };
}
