import path from 'node:path';
import { readLatestReport, REPORT_JSON } from '../outputs/report-files.js';
import type { ReportArgs } from './options.js';
import { configFromArgs } from './pass-config.js';

/** `agent-janitor report`: the latest report, as Markdown or JSON; exit 1 when there is none yet. */
export async function reportCommand(args: ReportArgs): Promise<number> {
  const config = await configFromArgs(args);
  const latest = await readLatestReport(config.reportDir);
  if (!latest)
    throw new Error(
      `no report yet: ${path.join(config.reportDir, REPORT_JSON)} does not exist (agent-janitor run writes it)`,
    );
  process.stdout.write(args.json || latest.markdown === null ? latest.json : latest.markdown);
  return 0;
}
