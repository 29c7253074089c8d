import path from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/load.js';
import { reconcile } from '../../src/reconcile/reconcile.js';
import type { PassResult } from '../../src/pass/pass.js';
import type { ProcessScope } from '../../src/safety/processes/processes.js';
import type { ProviderName, Report, ReportItem } from '../../src/model/types.js';
import { PROVIDERS, REASONS } from '../../src/providers/registry.js';

export interface PassSetup {
  /** Written as the config file; `reportDir` defaults to `<dir>/report`. */
  config: Record<string, unknown>;
  dir: string;
  reportOnly?: boolean;
  only?: ProviderName[];
  env?: NodeJS.ProcessEnv;
  clock?: () => Date;
  /** Runs once the plan is judged, before anything is deleted (a write that comes after the plan). */
  onPlanned?: (items: readonly ReportItem[]) => void | Promise<void>;
  /**
   * `own`: the pass looks only at the processes this test file started (and theirs), not at those
   * of other test files running beside it, whose git at work elsewhere may count everywhere.
   */
  processScope?: ProcessScope;
}

/** Runs one real pass in this process, through the config loader like the CLI does. */
export async function pass(setup: PassSetup): Promise<PassResult> {
  const file = path.join(setup.dir, 'agent-janitor.yaml');
  writeFileSync(file, stringify({ reportDir: path.join(setup.dir, 'report'), ...setup.config }));
  const env = { ...process.env, ...setup.env };
  const config = await loadConfig({ providers: PROVIDERS, file, env });
  const result = await reconcile({
    config,
    providers: PROVIDERS,
    only: setup.only,
    reportOnly: setup.reportOnly ?? false,
    log: pino({ level: 'silent' }),
    env,
    clock: setup.clock,
    ...(setup.onPlanned ? { onPlanned: setup.onPlanned } : {}),
    ...(setup.processScope ? { processScope: setup.processScope } : {}),
  });
  // Every pass a test runs holds its judges to the reason table (docs/reasons.md lists exactly it).
  const unknown = result.report.items.filter((item) => !(item.reason in REASONS));
  if (unknown.length > 0)
    throw new Error(
      `reasons in no provider's table: ${unknown.map((item) => `${item.reason} (${item.path})`).join(', ')}`,
    );
  return result;
}

/** The report item at `p`, or a test failure naming what the report holds instead. */
export function itemAt(report: Report, p: string): ReportItem {
  const found = report.items.find((item) => item.path === p);
  if (!found)
    throw new Error(
      `no item for ${p}; the report has: ${report.items.map((i) => `${i.path} ${i.verdict}`).join(', ')}`,
    );
  return found;
}
