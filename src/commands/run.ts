import { runPass } from '../core/pass.js';
import { allProviders } from '../providers/index.js';
import { renderSummary } from '../outputs/summary.js';
import { createLogger } from './logger.js';
import { configFromArgs, parseOnly, type PassArgs } from './options.js';

export interface RunArgs extends PassArgs {
  'report-only'?: boolean;
}

/** `agent-janitor run`: one pass, then the exit code of the contract. */
export async function runCommand(args: RunArgs): Promise<number> {
  const only = parseOnly(args.only);
  const config = await configFromArgs(args);
  const log = createLogger(args['log-level']);
  const { report, exitCode } = await runPass({
    config,
    providers: allProviders(),
    only,
    reportOnly: Boolean(args['report-only']),
    log,
    env: process.env,
  });
  process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report, config.reportDir));
  return exitCode;
}
