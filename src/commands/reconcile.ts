import { runPass, type PassOptions, type PassResult } from '../core/pass.js';
import { appendAudit, writeReport } from '../outputs/report-files.js';

/**
 * A pass as every command runs it: each deletion appended to the audit log as it is done, and the
 * report (report.json, report.md) written once the pass is over, before the run lock is released.
 */
export function reconcile(options: PassOptions): Promise<PassResult> {
  const { reportDir } = options.config;
  return runPass({
    ...options,
    onDeleted: async (item, at) => {
      await appendAudit(reportDir, item, at);
      await options.onDeleted?.(item, at);
    },
    onReport: async (report) => {
      await writeReport(reportDir, report);
      await options.onReport?.(report);
    },
  });
}
