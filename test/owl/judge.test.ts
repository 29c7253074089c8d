import { describe, expect, it } from 'vitest';
import { judgeLiveJob, type OwlRuleContext } from '../../src/providers/owl/judge.js';
import type { OwlJob } from '../../src/providers/owl/state.js';

const NOW = Date.parse('2026-11-30T06:00:00Z');
const DAY = 86_400_000;

function job(overrides: Partial<OwlJob> = {}): OwlJob {
  return {
    id: 7,
    state: 'review',
    worktree: '',
    branch: 'owl/job-7',
    project: 'shop',
    createdMs: NOW - 30 * DAY,
    ...overrides,
  };
}

function context(overrides: Partial<OwlRuleContext> = {}): OwlRuleContext {
  return {
    nowMs: NOW,
    reviewAfter: { ms: 7 * DAY, source: 'reviewAfter 7d' },
    daemon: null,
    lastRunEnded: new Map(),
    openRuns: new Map(),
    ...overrides,
  };
}

describe('the Owl rule for a job in review', () => {
  it('calls it overdue once its last run ended longer ago than reviewAfter', () => {
    const verdict = judgeLiveJob(job(), context({ lastRunEnded: new Map([[7, NOW - 8 * DAY]]) }));
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'review-overdue' });
  });

  it('keeps it within reviewAfter', () => {
    const verdict = judgeLiveJob(job(), context({ lastRunEnded: new Map([[7, NOW - DAY]]) }));
    expect(verdict).toMatchObject({ decision: 'kept', reason: 'job-open' });
  });

  it('ages it by its creation when no run ended', () => {
    expect(judgeLiveJob(job(), context()).reason).toBe('review-overdue');
  });

  it('takes no run end from the future as proof of anything: clock-skew', () => {
    const verdict = judgeLiveJob(job(), context({ lastRunEnded: new Map([[7, Date.parse('2099-01-01T00:00:00Z')]]) }));
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'clock-skew' });
    expect(verdict.detail).toContain('2099-01-01T00:00:00.000Z');
  });

  it('believes a run end a few minutes ahead (clocks drift)', () => {
    const verdict = judgeLiveJob(job(), context({ lastRunEnded: new Map([[7, NOW + 4 * 60_000]]) }));
    expect(verdict).toMatchObject({ decision: 'kept', reason: 'job-open' });
  });

  it('takes no creation time from the future either', () => {
    expect(judgeLiveJob(job({ createdMs: NOW + 2 * DAY }), context()).reason).toBe('clock-skew');
  });
});
