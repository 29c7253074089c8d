import { UsageError } from '../core/errors.js';
import { readLatestReport } from '../outputs/report-files.js';
import type { ReportArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor report`: the latest report, as Markdown or JSON. */
export async function reportCommand(args: ReportArgs): Promise<number> {
  const config = await configFromArgs(args);
  const latest = await readLatestReport(config.reportDir);
  if (!latest) throw new UsageError(`${config.reportDir}: no report yet; run \`agent-janitor run\` first`);
  process.stdout.write(args.json || latest.markdown === null ? latest.json : latest.markdown);
  return 0;
}
