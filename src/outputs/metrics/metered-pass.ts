import { LockHeldError, UsageError } from '../../core/errors.js';
import { runPass, type PassOptions, type PassResult } from '../../core/pass.js';
import { deliverMetrics, type Delivery } from './deliver.js';
import { outcomeOfReport, outcomeOfThrow, selectedProviderNames, type PassOutcome } from './outcome.js';

export type MeteredPass =
  | { finished: true; result: PassResult; outcome: PassOutcome; delivery: Delivery; exitCode: 0 | 1 }
  | { finished: false; error: unknown; outcome: PassOutcome; delivery: Delivery };

/**
 * One pass, then its metrics to the textfile and the Pushgateway. A pass that throws (the report
 * folder unwritable, say) still gets its metrics, as a failed pass: the last run time moves, every
 * provider it was to reconcile reads down, and the last success time stays. A pass that found the
 * run lock held did nothing, so it writes nothing either: LockHeldError goes straight through.
 */
export async function meteredPass(options: PassOptions): Promise<MeteredPass> {
  const clock = options.clock ?? (() => new Date());
  const providers = selectedProviderNames(options.providers, options.config, options.only);
  const startedAt = clock();
  let result: PassResult;
  try {
    result = await runPass(options);
  } catch (error) {
    // Nothing was done: another pass holds the lock, or the config is refused before any read.
    if (error instanceof LockHeldError || error instanceof UsageError) throw error;
    const outcome = outcomeOfThrow(error, providers, startedAt, clock());
    const delivery = await deliverMetrics(options.config, outcome, options.log);
    return { finished: false, error, outcome, delivery };
  }
  const outcome = outcomeOfReport(result.report, result.exitCode, providers);
  const delivery = await deliverMetrics(options.config, outcome, options.log);
  return { finished: true, result, outcome, delivery, exitCode: delivery.succeeded ? 0 : 1 };
}
