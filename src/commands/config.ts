import { stringify } from 'yaml';
import { rejectUnusableReportDir } from '../config/report-folder.js';
import { rejectOverlaps } from './overlaps.js';
import type { ConfigArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor config`: validates the config and prints the effective one as YAML. */
export async function configCommand(args: ConfigArgs): Promise<number> {
  const effective = await configFromArgs(args);
  await rejectOverlaps(effective);
  const { source, ...config } = effective;
  // What the pass checks of the report folder before it reads anything, checked here too.
  const reportDirFrom =
    args['report-dir'] !== undefined ? '--report-dir' : `${source ?? 'built-in defaults'}: reportDir`;
  await rejectUnusableReportDir(config.reportDir, reportDirFrom);
  process.stdout.write(`# effective config (from ${source ?? 'built-in defaults'})\n${stringify(config)}`);
  return 0;
}
