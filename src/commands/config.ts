import pino from 'pino';
import { stringify } from 'yaml';
import { expandHomes } from '../config/homes.js';
import { rejectOverlappingRoots } from '../core/overlaps.js';
import { allProviders } from '../providers/index.js';
import { createTreeCache } from '../safety/walk.js';
import type { PassArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor config`: validates the config and prints the effective one as YAML. */
export async function configCommand(args: PassArgs): Promise<number> {
  const effective = await configFromArgs(args);
  await rejectOverlappingRoots(allProviders(), {
    config: effective,
    homes: await expandHomes(effective.homes),
    now: new Date(),
    log: pino({ level: 'silent' }),
    env: process.env,
    measure: createTreeCache(),
  });
  const { source, ...config } = effective;
  process.stdout.write(`# effective config (from ${source ?? 'built-in defaults'})\n${stringify(config)}`);
  return 0;
}
