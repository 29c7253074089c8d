import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { PassOutcome } from '../outputs/metrics/outcome.js';

type RunResult = 'success' | 'failure' | 'skipped';
const RESULTS: readonly RunResult[] = ['success', 'failure', 'skipped'];

/** What serve adds up across its passes, with the Node.js process metrics, in a registry of its own. */
export class ServeCounters {
  readonly registry = new Registry();
  private readonly reclaimed = new Counter({
    name: 'agent_janitor_reclaimed_bytes_total',
    help: 'Bytes deleted by the passes of this serve process.',
    registers: [this.registry],
  });
  private readonly refused = new Counter({
    name: 'agent_janitor_refused_items_total',
    help: 'Refusals counted over the passes of this serve process (an item refused by two passes counts twice).',
    registers: [this.registry],
  });
  private readonly runs = new Counter({
    name: 'agent_janitor_runs_total',
    help: 'Passes of this serve process by result; skipped: a tick that found a pass still running or the run lock held.',
    labelNames: ['result'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Every result from the start, so rate() and increase() see the first one happen.
    for (const result of RESULTS) this.runs.inc({ result }, 0);
  }

  recordPass(outcome: PassOutcome, succeeded: boolean): void {
    this.reclaimed.inc(outcome.report?.totals.reclaimedBytes ?? 0);
    this.refused.inc(outcome.report?.totals.refused ?? 0);
    this.runs.inc({ result: succeeded ? 'success' : 'failure' });
  }

  recordSkip(): void {
    this.runs.inc({ result: 'skipped' });
  }
}
