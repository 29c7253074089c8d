import { runPass, type PassOptions, type PassResult } from '../core/pass.js';
import { appendAudit, writeReport } from '../outputs/report-files.js';
import { logDeletions } from './deletions-log.js';

/**
 * A pass as every command runs it: each deletion appended to the audit log as it is done, the
 * report (report.json, report.md) written once the pass is over, before the run lock is released,
 * and one log line for the deletions.
 */
export async function reconcile(options: PassOptions): Promise<PassResult> {
  const { reportDir } = options.config;
  let planned = 0;
  const result = await runPass({
    ...options,
    onPlanned: async (items) => {
      if (!options.reportOnly) planned = items.filter((item) => item.verdict === 'would-delete').length;
      await options.onPlanned?.(items);
    },
    onDeleted: async (item, at) => {
      await appendAudit(reportDir, item, at);
      await options.onDeleted?.(item, at);
    },
    onReport: async (report) => {
      await writeReport(reportDir, report);
      await options.onReport?.(report);
    },
  });
  if (planned > 0) logDeletions(options.log, planned, result.report);
  return result;
}
