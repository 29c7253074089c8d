import type { ReportItem, Totals } from './types.js';

export function computeTotals(items: readonly ReportItem[]): Totals {
  const totals: Totals = {
    reclaimedBytes: 0,
    wouldReclaimBytes: 0,
    deleted: 0,
    wouldDelete: 0,
    kept: 0,
    refused: 0,
    unfinished: 0,
    failed: 0,
  };
  for (const item of items) {
    switch (item.verdict) {
      case 'deleted':
        totals.deleted += 1;
        totals.reclaimedBytes += freedBytes(item);
        break;
      case 'would-delete':
        totals.wouldDelete += 1;
        totals.wouldReclaimBytes += item.bytes;
        break;
      default:
        totals[item.verdict] += 1;
    }
  }
  return totals;
}

/**
 * The bytes an item's deletion freed: its size, or, for a checkpointed log, what the log shrank by
 * less what its database grew (the pages the log held moved there).
 */
export function freedBytes(item: Pick<ReportItem, 'bytes' | 'checkpoint'>): number {
  const sizes = item.checkpoint;
  if (!sizes) return item.bytes;
  const grown = Math.max(0, sizes.databaseAfter - sizes.databaseBefore);
  return Math.max(0, sizes.walBefore - sizes.walAfter - grown);
}
