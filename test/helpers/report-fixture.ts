import type { Report, ReportItem } from '../../src/model/types.js';

// A report as a pass builds it, for the tests of what is written from one.

export function item(overrides: Partial<ReportItem>): ReportItem {
  return {
    provider: 'watchfire',
    kind: 'session-home',
    path: '/home/ana/.watchfire/homes/shop-chat-1',
    bytes: 2048,
    verdict: 'kept',
    reason: 'session-running',
    detail: 'the session is running',
    ...overrides,
  };
}

export function report(items: ReportItem[], overrides: Partial<Report> = {}): Report {
  return {
    schemaVersion: 1,
    tool: { name: 'agent-janitor', version: '0.1.0' },
    mode: 'delete',
    host: 'build-7',
    startedAt: '2026-11-30T06:00:00.000Z',
    finishedAt: '2026-11-30T06:00:04.000Z',
    processCheck: { mode: 'auto', inspected: 312, uninspectable: 2, visible: true },
    providers: [{ provider: 'watchfire', root: '/home/ana', ok: true }],
    items,
    totals: {
      reclaimedBytes: 3 * 1024 ** 3,
      wouldReclaimBytes: 0,
      deleted: 1,
      wouldDelete: 0,
      kept: 1,
      refused: 1,
      unfinished: 1,
      failed: 0,
    },
    ...overrides,
  };
}
