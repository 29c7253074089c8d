import { allProviders } from '../providers/index.js';
import { meteredPass } from './metered-pass.js';
import { renderSummary } from '../outputs/summary.js';
import { createLogger } from './logger.js';
import { parseOnly, type PassArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

export interface RunArgs extends PassArgs {
  'report-only'?: boolean;
}

/** `agent-janitor run`: one pass, its metrics (textfile, Pushgateway), then the exit code of the contract. */
export async function runCommand(args: RunArgs): Promise<number> {
  const only = parseOnly(args.only);
  const config = await configFromArgs(args);
  const log = await createLogger(args['log-level']);
  const pass = await meteredPass({
    config,
    providers: allProviders(),
    only,
    reportOnly: Boolean(args['report-only']),
    log,
    env: process.env,
  });
  if (!pass.finished) throw pass.error;
  const { report } = pass.result;
  process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report, config.reportDir));
  return pass.exitCode;
}
