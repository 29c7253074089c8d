import type { EffectiveConfig } from '../config/schema.js';
import { LockHeldError, UsageError } from '../core/errors.js';
import { selectProviders, type PassOptions, type PassResult } from '../core/pass.js';
import type { Provider, ProviderName } from '../core/types.js';
import { deliverMetrics, type Delivery } from '../outputs/metrics/deliver.js';
import { outcomeOfReport, outcomeOfThrow, type PassOutcome } from '../outputs/metrics/outcome.js';
import { reconcile } from './reconcile.js';

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
    result = await reconcile(options);
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

/** The names of the providers a pass reconciles. */
function selectedProviderNames(
  providers: readonly Provider[],
  config: EffectiveConfig,
  only: readonly ProviderName[] | undefined,
): ProviderName[] {
  return selectProviders(providers, config, only).map((provider) => provider.name);
}
