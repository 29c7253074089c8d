import { isHeld } from '../model/held.js';
import type { Report } from '../model/types.js';
import { escapedItem } from '../pass/escape.js';
import { largestFirst } from '../model/footprint.js';
import { formatBytes, formatCount, formatGrowth, formatItems } from '../util/format.js';

/** How many of the largest deletions the summary names. */
const LARGEST_SHOWN = 5;

/**
 * The few lines `run` prints on stdout for a person: the largest items the pass deleted (or would
 * delete), then the totals, what stopped the rest, and each metrics output that failed
 * (`metricsErrors`), which is what made the exit 1 when nothing else failed.
 */
export function renderSummary(report: Report, reportDir: string, metricsErrors: readonly string[] = []): string {
  const t = report.totals;
  const lines = [
    ...largestDeletions(report),
    report.mode === 'delete'
      ? `agent-janitor: reclaimed ${formatBytes(t.reclaimedBytes)} (${t.deleted} deleted)`
      : `agent-janitor (report only): would reclaim ${formatBytes(t.wouldReclaimBytes)} (${formatItems(t.wouldDelete)})`,
    `  kept ${t.kept}, refused ${t.refused}${byReason(report, 'refused')}, unfinished ${t.unfinished}${byReason(report, 'unfinished')}, failed ${t.failed}`,
  ];
  const held = report.items.filter(isHeld);
  if (held.length > 0) {
    const bytes = held.reduce((sum, item) => sum + item.bytes, 0);
    lines.push(`  held by live processes: ${formatBytes(bytes)} (${formatItems(held.length)} refused in-use)`);
  }
  const footprint = largestCategories(report);
  if (footprint) lines.push(footprint);
  for (const provider of report.providers.filter((p) => !p.ok)) {
    lines.push(
      `  provider ${provider.provider} at ${provider.root} could not be reconciled: ${provider.error ?? 'unknown error'}`,
    );
  }
  for (const warning of new Set(report.providers.flatMap((p) => (p.warning ? [p.warning] : []))))
    lines.push(`  warning: ${warning}`);
  const unfinished = report.items.filter((i) => i.verdict === 'unfinished');
  for (const item of unfinished.slice(0, 10)) lines.push(`  unfinished: ${item.path ?? item.kind} (${item.reason})`);
  if (unfinished.length > 10) lines.push(`  … and ${unfinished.length - 10} more unfinished`);
  for (const error of metricsErrors) lines.push(`  metrics not delivered, so the exit is 1: ${error}`);
  lines.push(`  report: ${reportDir}/report.md`);
  return `${lines.join('\n')}\n`;
}

/** How many of the footprint's categories the summary names. */
const CATEGORIES_SHOWN = 3;

/** "  disk, largest first: kilo checkpoints 12.0 GiB (+1.2 GiB), …": the footprint's three largest categories. */
function largestCategories(report: Report): string | null {
  const largest = largestFirst(report.footprint ?? [])
    .filter((entry) => entry.bytes > 0)
    .slice(0, CATEGORIES_SHOWN);
  if (largest.length === 0) return null;
  const named = largest.map((entry) => {
    const growth = entry.growthBytes === undefined ? '' : ` (${formatGrowth(entry.growthBytes)})`;
    return `${entry.provider} ${entry.category} ${formatBytes(entry.bytes)}${growth}`;
  });
  return `  disk, largest first: ${named.join(', ')}`;
}

/** " (in-use 2, symlink 1)": the reasons behind a verdict's count, most frequent first. */
function byReason(report: Report, verdict: 'refused' | 'unfinished'): string {
  const counts = new Map<string, number>();
  for (const item of report.items)
    if (item.verdict === verdict) counts.set(item.reason, (counts.get(item.reason) ?? 0) + 1);
  if (counts.size === 0) return '';
  const parts = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, n]) => `${reason} ${n}`);
  return ` (${parts.join(', ')})`;
}

/** "deleted, largest first (5 of 35):" and a line for each: its bytes, path and reason. */
function largestDeletions(report: Report): string[] {
  const verdict = report.mode === 'delete' ? 'deleted' : 'would-delete';
  const gone = report.items.filter((item) => item.verdict === verdict);
  if (gone.length === 0) return [];
  const largest = [...gone]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, LARGEST_SHOWN)
    .map(escapedItem);
  const sizes = largest.map((item) => formatBytes(item.bytes));
  const width = Math.max(...sizes.map((size) => size.length));
  const heading = report.mode === 'delete' ? 'deleted' : 'would delete';
  return [
    `${heading}, largest first (${largest.length} of ${formatCount(gone.length)}):`,
    ...largest.map((item, k) => `  ${sizes[k]?.padStart(width)}  ${item.path ?? item.kind} (${item.reason})`),
  ];
}
