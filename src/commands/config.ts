import { stringify } from 'yaml';
import { passPlaces, rejectUnusablePlaces } from '../config/own-places.js';
import { rejectOverlaps } from './overlaps.js';
import type { ConfigArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor config`: validates the config and prints the effective one as YAML. */
export async function configCommand(args: ConfigArgs): Promise<number> {
  const effective = await configFromArgs(args);
  await rejectOverlaps(effective);
  // What a pass checks of its folders before any work, checked here too.
  await rejectUnusablePlaces(passPlaces(effective, args));
  const { source, ...config } = effective;
  process.stdout.write(`# effective config (from ${source ?? 'built-in defaults'})\n${stringify(config)}`);
  return 0;
}

