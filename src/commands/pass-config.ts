import { loadConfig, type ConfigOverrides } from '../config/load.js';
import type { EffectiveConfig } from '../config/schema.js';
import type { ConfigArgs } from './options.js';

/** The effective config: the file (or built-in defaults) with the command line's overrides. */
export async function configFromArgs(args: Partial<ConfigArgs>): Promise<EffectiveConfig> {
  const overrides: ConfigOverrides = {};
  if (args.home?.length) overrides.homes = args.home;
  if (args['min-age'] !== undefined) overrides.minAge = args['min-age'];
  if (args['report-dir'] !== undefined) overrides.reportDir = args['report-dir'];
  if (args['metrics-file'] !== undefined) overrides.metricsFile = args['metrics-file'];
  if (args.pushgateway !== undefined) overrides.pushgateway = args.pushgateway;
  return loadConfig({ file: args.config, env: process.env, overrides });
}
