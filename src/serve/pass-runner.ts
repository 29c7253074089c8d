import type { Logger } from 'pino';
import { LockHeldError, errorMessage } from '../model/errors.js';
import { selectProviders } from '../pass/pass.js';
import { describeFailure, outcomeOfThrow, type PassOutcome } from '../outputs/metrics/outcome.js';
import { PassBroke, reconcile, type Reconciled, type ReconcileOptions } from '../reconcile/reconcile.js';
import type { ServeCounters } from './counters.js';
import type { FinishedPass } from './health.js';

export type PassTrigger = 'start' | 'schedule';

/**
 * Runs serve's passes one at a time. A tick that comes while a pass is under way is skipped and
 * counted, never queued: the next tick after the pass ends runs as usual. A pass that finds the run
 * lock held (a `run` elsewhere is going) did nothing and counts as skipped, not as a failure.
 */
export class PassRunner {
  private current: Promise<void> | null = null;
  /** The last pass that ran to its end. */
  lastPass: FinishedPass | null = null;
  /** What the last pass left for the gauges of /metrics. */
  lastOutcome: PassOutcome | null = null;
  /** End of the last pass that exited 0, seconds since the epoch (carried over from the textfile at start). */
  lastSuccessSeconds: number | null;

  constructor(
    private readonly passOptions: ReconcileOptions,
    private readonly counters: ServeCounters,
    private readonly log: Logger,
    lastSuccessSeconds: number | null,
  ) {
    this.lastSuccessSeconds = lastSuccessSeconds;
  }

  get running(): boolean {
    return this.current !== null;
  }

  /** Starts a pass unless one is under way; false (and a skip counted) when one is. */
  trigger(trigger: PassTrigger): boolean {
    if (this.current) {
      this.skip(`a ${trigger} tick came while a pass was still running; skipped`);
      return false;
    }
    this.current = this.pass(trigger)
      .catch((err: unknown) => this.log.error({ err: errorMessage(err) }, 'a pass could not be recorded'))
      .finally(() => {
        this.current = null;
      });
    return true;
  }

  /** A tick node-cron could not fire on time (the event loop was busy, with a pass most likely). */
  missedTick(at: Date): void {
    this.skip(`the tick of ${at.toISOString()} could not fire on time; skipped`);
  }

  /** Resolves once no pass is under way. */
  async idle(): Promise<void> {
    while (this.current) await this.current;
  }

  private skip(why: string): void {
    this.counters.recordSkip();
    this.log.warn(why);
  }

  private async pass(trigger: PassTrigger): Promise<void> {
    this.log.info({ trigger }, 'pass started');
    let pass: Reconciled;
    try {
      pass = await reconcile(this.passOptions);
    } catch (err) {
      if (err instanceof LockHeldError) {
        this.skip(`${err.message}; this tick is skipped`);
        return;
      }
      if (err instanceof PassBroke) {
        const failure = [describeFailure(err.outcome), ...err.delivery.errors].filter(Boolean).join('; ');
        this.record(err.outcome, false, failure);
        return;
      }
      this.record(this.unexpected(err), false, `the pass stopped with an error: ${errorMessage(err)}`);
      return;
    }
    const succeeded = pass.exitCode === 0;
    const failure = succeeded
      ? null
      : [describeFailure(pass.outcome), ...pass.delivery.errors].filter(Boolean).join('; ');
    this.record(pass.outcome, succeeded, failure);
  }

  private record(outcome: PassOutcome, succeeded: boolean, failure: string | null): void {
    const finishedAt = outcome.finishedAt.getTime();
    this.lastOutcome = outcome;
    this.lastPass = { finishedAt, succeeded, failure: failure || (succeeded ? null : 'the pass exited 1') };
    if (succeeded) this.lastSuccessSeconds = finishedAt / 1000;
    this.counters.recordPass(outcome, succeeded);
    const totals = outcome.report?.totals;
    if (succeeded) this.log.info({ totals }, 'pass finished');
    else this.log.error({ totals, failure: this.lastPass.failure }, 'pass failed');
  }

  /** An error outside the pass and its metrics (a bug): still a failed pass for health and counters. */
  private unexpected(err: unknown): PassOutcome {
    const { providers, config, only } = this.passOptions;
    const now = new Date();
    const names = selectProviders(providers, config, only).map((provider) => provider.name);
    return outcomeOfThrow(err, names, now, now);
  }
}
