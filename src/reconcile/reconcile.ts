import type { Logger } from 'pino';
import { expandHomes } from '../config/homes.js';
import { LockHeldError, UsageError } from '../model/errors.js';
import { rejectOverlappingRoots } from '../pass/overlaps.js';
import { runPass, selectProviders, type PassOptions } from '../pass/pass.js';
import type { Report } from '../model/types.js';
import { deliverMetrics, type Delivery } from '../outputs/metrics/deliver.js';
import { outcomeOfReport, outcomeOfThrow, type PassOutcome } from '../outputs/metrics/outcome.js';
import { appendAudit, readPreviousFootprint, writeReport } from '../outputs/report-files.js';
import { withGrowth } from '../model/footprint.js';
import { acquireRunLock } from '../safety/locks/run-lock.js';
import { createTreeCache } from '../safety/walk/tree-cache.js';
import { formatBytes, formatCount, formatItems } from '../util/format.js';

export type ReconcileOptions = Omit<PassOptions, 'onDeleted' | 'homes'>;

/** A pass that ran to its end: its report, its exit code, and what became of its metrics. */
export interface Reconciled {
  report: Report;
  /** 0 when every provider was reconciled, every action succeeded and every metrics output was delivered. */
  exitCode: 0 | 1;
  outcome: PassOutcome;
  delivery: Delivery;
}

/**
 * A pass that broke before its report (the report folder unwritable, say). Its metrics were still
 * delivered, as a failed pass: the last run time moves, every provider it was to reconcile reads
 * down, and the last success time stays.
 */
export class PassBroke extends Error {
  override name = 'PassBroke';
  constructor(
    override readonly cause: unknown,
    readonly outcome: PassOutcome,
    readonly delivery: Delivery,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/**
 * One pass, the one way `run`, `serve` and `demo` run it, in this order: the config's providers and
 * the folders they claim checked, the run lock, gather, plan, apply (unless report-only; each
 * deletion appended to audit.jsonl as it is done), the report files (under the lock, so a pass that
 * starts next never has its report replaced by this one's), then the metrics. Bad usage and a held
 * run lock did nothing and go straight through, with no metrics.
 */
export async function reconcile(options: ReconcileOptions): Promise<Reconciled> {
  const clock = options.clock ?? (() => new Date());
  const providers = selectProviders(options.providers, options.config, options.only);
  const names = providers.map((provider) => provider.name);
  const startedAt = clock();
  let report: Report;
  let passExit: 0 | 1;
  let planned = 0;
  try {
    const homes = await expandHomes(options.config.homes);
    await rejectOverlappingRoots(options.providers, {
      config: options.config,
      homes,
      now: startedAt,
      log: options.log,
      env: options.env,
      measure: createTreeCache(),
      registry: options.providers,
    });
    const lock = await acquireRunLock(options.config.reportDir);
    if (lock.repaired)
      options.log.warn({ lock: lock.path, was: lock.repaired }, 'the run lock file was unusable and has been replaced');
    try {
      // Read under the lock, before this pass's report replaces it: the footprint's growth.
      const previous = await readPreviousFootprint(options.config.reportDir);
      const result = await runPass({
        ...options,
        homes,
        onPlanned: async (items) => {
          if (!options.reportOnly) planned = items.filter((item) => item.verdict === 'would-delete').length;
          await options.onPlanned?.(items);
        },
        onDeleted: (item, at) => appendAudit(options.config.reportDir, item, at),
      });
      report = result.report.footprint
        ? { ...result.report, footprint: withGrowth(result.report.footprint, previous, names) }
        : result.report;
      await writeReport(options.config.reportDir, report);
      passExit = result.exitCode;
    } finally {
      lock.release();
    }
  } catch (error) {
    if (error instanceof LockHeldError || error instanceof UsageError) throw error;
    const outcome = outcomeOfThrow(error, names, startedAt, clock());
    throw new PassBroke(error, outcome, await deliverMetrics(options.config, outcome, options.log));
  }
  if (planned > 0) logDeletions(options.log, planned, report);
  const outcome = outcomeOfReport(report, passExit, names);
  const delivery = await deliverMetrics(options.config, outcome, options.log);
  return { report, exitCode: delivery.succeeded ? 0 : 1, outcome, delivery };
}

/**
 * One line at info for all the deletions of a pass: how many went and their bytes, how many failed,
 * and how many the last checks before removal left alone. On a terminal it stands for the line of
 * each deletion, which is then at debug.
 */
function logDeletions(log: Logger, planned: number, report: Report): void {
  const { deleted, reclaimedBytes: bytes, failed } = report.totals;
  const leftAlone = planned - deleted - failed;
  let message = `deleted ${formatItems(deleted)} (${formatBytes(bytes)})`;
  if (failed > 0) message += `, ${formatCount(failed)} failed`;
  if (leftAlone > 0) message += `, ${formatCount(leftAlone)} left alone at the last look`;
  log.info({ planned, deleted, bytes, failed, leftAlone }, message);
}
