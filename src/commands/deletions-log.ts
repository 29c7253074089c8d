import type { Logger } from 'pino';
import type { Report } from '../core/types.js';
import { formatBytes, formatCount, formatItems } from '../util/format.js';

/**
 * One line at info for all the deletions of a pass: how many went and their bytes, how many failed,
 * and how many the last checks before removal left alone. On a terminal it stands for the line of
 * each deletion, which is then at debug.
 */
export function logDeletions(log: Logger, planned: number, report: Report): void {
  const { deleted, reclaimedBytes: bytes, failed } = report.totals;
  const leftAlone = planned - deleted - failed;
  let message = `deleted ${formatItems(deleted)} (${formatBytes(bytes)})`;
  if (failed > 0) message += `, ${formatCount(failed)} failed`;
  if (leftAlone > 0) message += `, ${formatCount(leftAlone)} left alone at the last look`;
  log.info({ planned, deleted, bytes, failed, leftAlone }, message);
}
