import { stringify } from 'yaml';
import type { PassArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor config`: validates the config and prints the effective one as YAML. */
export async function configCommand(args: PassArgs): Promise<number> {
  const { source, ...config } = await configFromArgs(args);
  process.stdout.write(`# effective config (from ${source ?? 'built-in defaults'})\n${stringify(config)}`);
  return 0;
}
