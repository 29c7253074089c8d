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
        totals.reclaimedBytes += item.bytes;
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
