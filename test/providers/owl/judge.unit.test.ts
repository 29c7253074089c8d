import { describe, expect, it } from 'vitest';
import {
  isRemovableJob,
  judgeLiveJob,
  judgeRemovableWorktree,
  type OwlRuleContext,
} from '../../../src/providers/owl/judge.js';
import type { OwlJob } from '../../../src/providers/owl/state.js';
import { BRANCH, NOTHING_NESTED, cleanFacts, linked, nestedAt } from '../../helpers/worktree-evidence.js';

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

describe('the Owl rule for the other live states', () => {
  it('keeps a pending, blocked or exhausted job: Owl still owns its worktree', () => {
    for (const state of ['pending', 'blocked', 'exhausted']) {
      expect(judgeLiveJob(job({ state }), context())).toMatchObject({ decision: 'kept', reason: 'job-open' });
    }
  });

  it('keeps a job in a state Owl does not have, saying so', () => {
    const verdict = judgeLiveJob(job({ state: 'archived' }), context());
    expect(verdict).toMatchObject({ decision: 'kept', reason: 'job-state-unknown' });
    expect(verdict.detail).toContain('"archived"');
  });

  it('keeps an active job while owld answers, or while its liveness is unknown', () => {
    const live = context({ daemon: { state: 'live', socket: '/run/owl/owld.sock' } });
    expect(judgeLiveJob(job({ state: 'active' }), live)).toMatchObject({ decision: 'kept', reason: 'job-open' });
    const unknown = context({
      daemon: { state: 'unknown', socket: '/run/owl/owld.sock', why: 'EACCES on the socket' },
    });
    const verdict = judgeLiveJob(job({ state: 'active' }), unknown);
    expect(verdict).toMatchObject({ decision: 'kept', reason: 'job-open' });
    expect(verdict.detail).toContain('EACCES on the socket');
    expect(judgeLiveJob(job({ state: 'active' }), context()).decision).toBe('kept');
  });

  it('calls an active job whose daemon is gone unfinished, naming the runs left open', () => {
    const dead = context({
      daemon: { state: 'dead', tried: ['/run/owl/owld.sock'] },
      openRuns: new Map([[7, [41, 42]]]),
    });
    const verdict = judgeLiveJob(job({ state: 'active' }), dead);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'active-without-daemon' });
    expect(verdict.detail).toContain('41, 42');
  });
});

describe('the Owl rule for a worktree whose job is done, cancelled or gone', () => {
  it('lets a worktree go only when its job is done, cancelled or gone from owl.db', () => {
    expect(isRemovableJob(null)).toBe(true);
    expect(isRemovableJob(job({ state: 'done' }))).toBe(true);
    expect(isRemovableJob(job({ state: 'cancelled' }))).toBe(true);
    for (const state of ['pending', 'blocked', 'exhausted', 'review', 'active', 'archived']) {
      expect(isRemovableJob(job({ state }))).toBe(false);
    }
  });

  it('deletes a clean worktree whose HEAD a branch holds, with the job’s state as the reason', () => {
    const done = judgeRemovableWorktree(job({ state: 'done' }), linked(cleanFacts()), NOTHING_NESTED);
    expect(done).toMatchObject({ decision: 'delete', reason: 'job-done' });
    expect(done.detail).toContain('is held by refs/heads/task-7, refs/heads/main');
    const cancelled = judgeRemovableWorktree(job({ state: 'cancelled' }), linked(cleanFacts()), NOTHING_NESTED);
    expect(cancelled.reason).toBe('job-cancelled');
    const vanished = judgeRemovableWorktree(null, linked(cleanFacts()), NOTHING_NESTED);
    expect(vanished).toMatchObject({ decision: 'delete', reason: 'job-vanished' });
    expect(vanished.detail).toContain('no job in owl.db matches it');
  });

  it('still counts the worktree’s own branch as holding HEAD (Owl keeps job branches)', () => {
    const git = cleanFacts({ containingRefs: [BRANCH] });
    expect(judgeRemovableWorktree(job({ state: 'done' }), linked(git), NOTHING_NESTED).decision).toBe('delete');
  });

  it('reports a HEAD that no ref holds as unique commits', () => {
    const git = cleanFacts({ head: { commit: 'c'.repeat(40), branch: null }, containingRefs: [], commitsOnlyHere: 1 });
    const verdict = judgeRemovableWorktree(job({ state: 'done' }), linked(git), NOTHING_NESTED);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'unique-commits' });
    expect(verdict.detail).toContain('(1 commit nowhere else)');
  });

  it('reports uncommitted changes even though the job is done', () => {
    const git = cleanFacts({ changes: { changed: 2, untracked: 0, flagged: 0, sample: ['a.ts', 'b.ts'] } });
    const verdict = judgeRemovableWorktree(job({ state: 'done' }), linked(git), NOTHING_NESTED);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'uncommitted-changes' });
    expect(verdict.detail).toContain('2 uncommitted changes (a.ts, b.ts)');
  });

  it('refuses a git-locked worktree, one git could not examine, and one not linked', () => {
    const locked = judgeRemovableWorktree(job({ state: 'done' }), linked(cleanFacts(), ''), NOTHING_NESTED);
    expect(locked).toMatchObject({ decision: 'refused', reason: 'git-locked' });
    const failed = judgeRemovableWorktree(job({ state: 'done' }), linked(null, null, 'timed out'), NOTHING_NESTED);
    expect(failed).toMatchObject({ decision: 'refused', reason: 'git-failed' });
    expect(failed.detail).toContain('timed out');
    const unlinked = judgeRemovableWorktree(
      job({ state: 'done' }),
      { path: '/x', state: 'unlinked', problem: 'not-a-worktree', detail: '/x/.git is missing' },
      NOTHING_NESTED,
    );
    expect(unlinked).toMatchObject({ decision: 'refused', reason: 'not-a-worktree' });
  });

  it('reports an operation under way and a nested repository as unfinished', () => {
    const merging = cleanFacts({ operation: 'a merge is in progress' });
    expect(judgeRemovableWorktree(job({ state: 'done' }), linked(merging), NOTHING_NESTED).reason).toBe(
      'operation-in-progress',
    );
    const nested = judgeRemovableWorktree(job({ state: 'done' }), linked(cleanFacts()), nestedAt('deps/x'));
    expect(nested).toMatchObject({ decision: 'unfinished', reason: 'nested-repository' });
  });

  it('refuses when nesting cannot be told, and when a submodule is checked out', () => {
    const unknown = judgeRemovableWorktree(job({ state: 'done' }), linked(cleanFacts()), {
      ok: false,
      error: 'EIO',
    });
    expect(unknown).toMatchObject({ decision: 'refused', reason: 'unreadable' });
    const submodule = judgeRemovableWorktree(
      job({ state: 'done' }),
      linked(cleanFacts({ submodule: 'submodule lib is checked out' })),
      NOTHING_NESTED,
    );
    expect(submodule).toMatchObject({ decision: 'refused', reason: 'has-submodule' });
  });
});
