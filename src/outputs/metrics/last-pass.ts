import { Gauge, Registry } from 'prom-client';
import { isHeld } from '../../model/held.js';
import { freedBytes } from '../../model/totals.js';
import { VERDICTS, type ProviderName, type ReportItem } from '../../model/types.js';
import type { PassOutcome } from './outcome.js';

/** The contract's names for the last pass's gauges. */
export const LAST_PASS_METRICS = {
  reclaimedBytes: 'agent_janitor_reclaimed_bytes',
  items: 'agent_janitor_items',
  refusedItems: 'agent_janitor_refused_items',
  unfinishedItems: 'agent_janitor_unfinished_items',
  scratchBytes: 'agent_janitor_scratch_bytes',
  reclaimableBytes: 'agent_janitor_reclaimable_bytes',
  heldBytes: 'agent_janitor_held_bytes',
  providerUp: 'agent_janitor_provider_up',
  footprintBytes: 'agent_janitor_footprint_bytes',
  lastRun: 'agent_janitor_last_run_timestamp_seconds',
  lastSuccess: 'agent_janitor_last_success_timestamp_seconds',
  runDuration: 'agent_janitor_run_duration_seconds',
} as const;

type Labels = Record<string, string>;

/**
 * The last pass's gauges in a registry of their own, made fresh for every rendering so that no
 * figure of an earlier pass can leak into a later one.
 *
 * `lastSuccessSeconds` is the end of the last pass that exited 0; null leaves the gauge out (before
 * any success, and in the push of a failed pass so that the Pushgateway keeps its old value).
 */
export function lastPassRegistry(outcome: PassOutcome, lastSuccessSeconds: number | null): Registry {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });

  const reclaimed = gauge(LAST_PASS_METRICS.reclaimedBytes, 'Bytes deleted by the last pass.', ['provider', 'kind']);
  const items = gauge(LAST_PASS_METRICS.items, 'Items by verdict in the last pass.', ['provider', 'kind', 'verdict']);
  const refused = gauge(LAST_PASS_METRICS.refusedItems, 'Refusals by reason in the last pass.', [
    'provider',
    'kind',
    'reason',
  ]);
  const unfinished = gauge(LAST_PASS_METRICS.unfinishedItems, 'Unfinished work found by the last pass, by reason.', [
    'provider',
    'kind',
    'reason',
  ]);
  const scratch = gauge(
    LAST_PASS_METRICS.scratchBytes,
    'Bytes of scratch still on disk after the last pass (every verdict but deleted).',
    ['provider', 'kind'],
  );
  const reclaimable = gauge(
    LAST_PASS_METRICS.reclaimableBytes,
    'Bytes a deleting pass would free now (the would-delete items; 0 after a deleting pass).',
    ['provider', 'kind'],
  );
  const held = gauge(
    LAST_PASS_METRICS.heldBytes,
    'Bytes of items refused in-use because a live process still holds them (a runaway writer).',
    ['provider', 'kind'],
  );
  const up = gauge(
    LAST_PASS_METRICS.providerUp,
    "1 when the provider's source of truth could be read in the last pass.",
    ['provider'],
  );
  const footprint = gauge(
    LAST_PASS_METRICS.footprintBytes,
    "Bytes of each tool's state on disk by category, whatever the verdicts (the report's footprint).",
    ['provider', 'category'],
  );
  const lastRun = gauge(LAST_PASS_METRICS.lastRun, 'End of the last pass, in seconds since the epoch.');
  const duration = gauge(LAST_PASS_METRICS.runDuration, 'Length of the last pass, in seconds.');

  const reportItems = outcome.report?.items ?? [];
  fill(
    reclaimed,
    sumBy(reportItems, ['provider', 'kind'], (item) => (item.verdict === 'deleted' ? freedBytes(item) : 0)),
  );
  fill(
    scratch,
    sumBy(reportItems, ['provider', 'kind'], (item) => (item.verdict === 'deleted' ? 0 : item.bytes)),
  );
  fill(
    reclaimable,
    sumBy(reportItems, ['provider', 'kind'], (item) => (item.verdict === 'would-delete' ? item.bytes : 0)),
  );
  fill(
    held,
    sumBy(reportItems, ['provider', 'kind'], (item) => (isHeld(item) ? item.bytes : 0)),
  );
  fill(items, countVerdicts(reportItems));
  fill(
    refused,
    sumBy(
      reportItems.filter((item) => item.verdict === 'refused'),
      ['provider', 'kind', 'reason'],
      () => 1,
    ),
  );
  fill(
    unfinished,
    sumBy(
      reportItems.filter((item) => item.verdict === 'unfinished'),
      ['provider', 'kind', 'reason'],
      () => 1,
    ),
  );

  fill(
    footprint,
    new Map(
      (outcome.report?.footprint ?? []).map((entry) => [
        `${entry.provider}\0${entry.category}`,
        { labels: { provider: entry.provider, category: entry.category }, value: entry.bytes },
      ]),
    ),
  );
  for (const [provider, isUp] of providerUp(outcome)) up.set({ provider }, isUp ? 1 : 0);
  lastRun.set(outcome.finishedAt.getTime() / 1000);
  duration.set(Math.max(0, outcome.finishedAt.getTime() - outcome.startedAt.getTime()) / 1000);
  if (lastSuccessSeconds !== null) {
    gauge(LAST_PASS_METRICS.lastSuccess, 'End of the last pass that exited 0, in seconds since the epoch.').set(
      lastSuccessSeconds,
    );
  }
  return registry;
}

/** The media type of what renderLastPass writes, for the Pushgateway's request. */
export const LAST_PASS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The last pass's gauges in the Prometheus text format. */
export function renderLastPass(outcome: PassOutcome, lastSuccessSeconds: number | null): Promise<string> {
  return lastPassRegistry(outcome, lastSuccessSeconds).metrics();
}

/**
 * A family with no figure in this pass still gets one sample, an unlabelled 0: a Pushgateway POST
 * replaces a family only when the push holds a sample of it, so an empty family would leave the
 * previous pass's refusals (say) standing as if they were this pass's.
 */
function fill(gauge: Gauge, values: Map<string, { labels: Labels; value: number }>): void {
  if (values.size === 0) {
    gauge.set(0);
    return;
  }
  for (const { labels, value } of values.values()) gauge.set(labels, value);
}

function sumBy(
  items: readonly ReportItem[],
  keys: readonly ('provider' | 'kind' | 'reason')[],
  amountOf: (item: ReportItem) => number,
): Map<string, { labels: Labels; value: number }> {
  const out = new Map<string, { labels: Labels; value: number }>();
  for (const item of items) {
    const labels: Labels = Object.fromEntries(keys.map((key) => [key, item[key]]));
    const id = JSON.stringify(labels);
    const entry = out.get(id) ?? { labels, value: 0 };
    entry.value += amountOf(item);
    out.set(id, entry);
  }
  return out;
}

/** Every verdict for every provider and kind seen, zeros included, so a verdict that empties reads 0. */
function countVerdicts(items: readonly ReportItem[]): Map<string, { labels: Labels; value: number }> {
  const out = new Map<string, { labels: Labels; value: number }>();
  for (const item of items) {
    for (const verdict of VERDICTS) {
      const labels: Labels = { provider: item.provider, kind: item.kind, verdict };
      const id = JSON.stringify(labels);
      if (!out.has(id)) out.set(id, { labels, value: 0 });
    }
    const own = out.get(JSON.stringify({ provider: item.provider, kind: item.kind, verdict: item.verdict }));
    if (own) own.value += 1;
  }
  return out;
}

/**
 * A provider is up when every one of its roots could be read. A provider the pass was to reconcile
 * but whose tool is installed in no home has no root and is up: nothing failed. A pass that threw
 * reconciled no provider, so each is down.
 */
function providerUp(outcome: PassOutcome): Map<ProviderName, boolean> {
  const up = new Map<ProviderName, boolean>();
  for (const name of outcome.providers) up.set(name, outcome.report !== null);
  for (const root of outcome.report?.providers ?? []) up.set(root.provider, (up.get(root.provider) ?? true) && root.ok);
  return up;
}
