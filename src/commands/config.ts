import { stringify } from 'yaml';
import { passPlaces, rejectUnusablePlaces } from '../config/own-places.js';
import type { EffectiveConfig } from '../config/schema.js';
import { rejectOverlaps } from './overlaps.js';
import type { ConfigArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor config`: validates the config and prints the effective one as YAML. */
export async function configCommand(args: ConfigArgs): Promise<number> {
  const effective = await configFromArgs(args);
  await rejectOverlaps(effective);
  // What a pass checks of its folders before any work, checked here too.
  await rejectUnusablePlaces(passPlaces(effective, args));
  process.stdout.write(
    `# effective config (from ${effective.source ?? 'built-in defaults'})\n${stringify(inContractOrder(effective))}`,
  );
  return 0;
}

/**
 * Every key a pass uses, in the order of the config file's documentation: whose homes, how old,
 * where the report goes first, then the rest; the source is said in the heading instead.
 */
function inContractOrder(effective: EffectiveConfig): Omit<EffectiveConfig, 'source'> {
  const {
    source: _source,
    homes,
    minAge,
    reportDir,
    processCheck,
    footprint,
    metrics,
    serve,
    providers,
    ...rest
  } = effective;
  return { homes, minAge, reportDir, processCheck, footprint, metrics, serve, providers, ...rest };
}
