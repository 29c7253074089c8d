import { describe, expect, it } from 'vitest';
import { judgeSetWorktree, type IdlePolicy } from '../../../src/engines/git-worktree/judge.js';
import type { NewestWrite } from '../../../src/engines/git-worktree/idle.js';
import {
  BRANCH,
  HEAD,
  NOTHING_NESTED,
  WORKTREE,
  cleanFacts,
  linked,
  nestedAt,
} from '../../helpers/worktree-evidence.js';

const NOW = Date.parse('2026-11-30T06:00:00Z');
const DAY = 86_400_000;
const POLICY: IdlePolicy = { set: 'claude-code', idleAfterMs: 14 * DAY, nowMs: NOW };
const IDLE: NewestWrite = { ms: NOW - 20 * DAY };

describe('the worktree-set rule (pure)', () => {
  it('deletes a worktree idle past idleAfter, clean, unlocked, whose HEAD another branch holds', () => {
    const verdict = judgeSetWorktree(linked(cleanFacts()), IDLE, POLICY, NOTHING_NESTED);
    expect(verdict.decision).toBe('delete');
    expect(verdict.reason).toBe('idle-clean');
    expect(verdict.detail).toContain('idle for 20.0d, past idleAfter 2w of set claude-code');
    expect(verdict.detail).toContain('is also in refs/heads/main');
    expect(verdict.detail).toContain('branch task-7 stays');
  });

  it('passes over a folder that is no linked worktree with its link problem as the reason', () => {
    const verdict = judgeSetWorktree(
      { path: WORKTREE, state: 'unlinked', problem: 'admin-entry-missing', detail: 'no admin entry' },
      IDLE,
      POLICY,
      NOTHING_NESTED,
    );
    expect(verdict).toEqual({ decision: 'refused', reason: 'admin-entry-missing', detail: 'no admin entry' });
  });

  it('refuses an idle git-locked worktree (its tool still claims it), whatever else holds; a young one is kept for its age', () => {
    const verdict = judgeSetWorktree(linked(cleanFacts(), 'agent at work'), IDLE, POLICY, NOTHING_NESTED);
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'git-locked' });
    expect(verdict.detail).toContain('(agent at work)');
    const young = judgeSetWorktree(linked(cleanFacts(), 'agent at work'), { ms: NOW }, POLICY, NOTHING_NESTED);
    expect(young).toMatchObject({ decision: 'kept', reason: 'not-idle' });
  });

  it('keeps a worktree written within idleAfter, and one written exactly at the limit', () => {
    const recent = judgeSetWorktree(linked(cleanFacts()), { ms: NOW - DAY }, POLICY, NOTHING_NESTED);
    expect(recent).toMatchObject({ decision: 'kept', reason: 'not-idle' });
    const atLimit = judgeSetWorktree(linked(cleanFacts()), { ms: NOW - 14 * DAY }, POLICY, NOTHING_NESTED);
    expect(atLimit).toMatchObject({ decision: 'kept', reason: 'not-idle' });
    const past = judgeSetWorktree(linked(cleanFacts()), { ms: NOW - 14 * DAY - 1 }, POLICY, NOTHING_NESTED);
    expect(past.decision).toBe('delete');
  });

  it('keeps a worktree whose newest write is unknown, and refuses one whose age could not be read', () => {
    expect(judgeSetWorktree(linked(cleanFacts()), { ms: null }, POLICY, NOTHING_NESTED)).toMatchObject({
      decision: 'kept',
      reason: 'not-idle',
    });
    const unreadable = judgeSetWorktree(
      linked(cleanFacts()),
      { ms: NOW - 20 * DAY, error: 'EACCES: sub/dir' },
      POLICY,
      NOTHING_NESTED,
    );
    expect(unreadable).toMatchObject({ decision: 'refused', reason: 'unreadable' });
    expect(unreadable.detail).toContain('EACCES: sub/dir');
  });

  it('refuses when git could not examine it, naming git’s error', () => {
    const verdict = judgeSetWorktree(linked(null, null, 'fatal: bad object'), IDLE, POLICY, NOTHING_NESTED);
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'git-failed' });
    expect(verdict.detail).toContain('fatal: bad object');
  });

  it('reports a rebase or merge under way as unfinished', () => {
    const verdict = judgeSetWorktree(
      linked(cleanFacts({ operation: 'a rebase is in progress' })),
      IDLE,
      POLICY,
      NOTHING_NESTED,
    );
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'operation-in-progress' });
  });

  it('reports a nested repository that no submodule accounts for, but not a registered submodule', () => {
    const nested = judgeSetWorktree(linked(cleanFacts()), IDLE, POLICY, nestedAt('vendor/lib'));
    expect(nested).toMatchObject({ decision: 'unfinished', reason: 'nested-repository' });
    expect(nested.detail).toContain('vendor/lib/.git');
    const registered = judgeSetWorktree(
      linked(cleanFacts({ gitlinks: ['vendor/lib'] })),
      IDLE,
      POLICY,
      nestedAt('vendor/lib'),
    );
    expect(registered.decision).toBe('delete');
  });

  it('reports uncommitted changes, untracked files and flagged files as unfinished', () => {
    for (const changes of [
      { changed: 1, untracked: 0, flagged: 0, sample: ['src/a.ts'] },
      { changed: 0, untracked: 1, flagged: 0, sample: ['notes.txt'] },
      { changed: 0, untracked: 0, flagged: 1, sample: ['config.json'] },
    ]) {
      const verdict = judgeSetWorktree(linked(cleanFacts({ changes })), IDLE, POLICY, NOTHING_NESTED);
      expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'uncommitted-changes' });
      expect(verdict.detail).toContain(changes.sample[0]);
    }
  });

  it('reports a HEAD held only by the worktree’s own branch as unique commits', () => {
    const verdict = judgeSetWorktree(
      linked(cleanFacts({ containingRefs: [BRANCH], commitsOnlyHere: 3 })),
      IDLE,
      POLICY,
      NOTHING_NESTED,
    );
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'unique-commits' });
    expect(verdict.detail).toContain(`HEAD ${HEAD.slice(0, 12)}`);
    expect(verdict.detail).toContain('(3 commits nowhere else)');
  });

  it('reports a per-worktree ref whose commit nothing else holds', () => {
    const worktreeRefs = [{ name: 'refs/bisect/bad', commit: 'b'.repeat(40), containingRefs: [BRANCH] }];
    const verdict = judgeSetWorktree(linked(cleanFacts({ worktreeRefs })), IDLE, POLICY, NOTHING_NESTED);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'unique-commits' });
    expect(verdict.detail).toContain('refs/bisect/bad');
  });

  it('refuses when the walk could not tell whether a repository is nested inside', () => {
    const verdict = judgeSetWorktree(linked(cleanFacts()), IDLE, POLICY, { ok: false, error: 'EACCES: deep' });
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'unreadable' });
  });

  it('refuses a worktree with a submodule', () => {
    const verdict = judgeSetWorktree(
      linked(cleanFacts({ submodule: 'submodule lib is checked out' })),
      IDLE,
      POLICY,
      NOTHING_NESTED,
    );
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'has-submodule' });
  });

  it('deletes an idle clean worktree whose branch has no commit yet', () => {
    const git = cleanFacts({ head: { commit: null, branch: BRANCH }, containingRefs: [], commitsOnlyHere: null });
    const verdict = judgeSetWorktree(linked(git), IDLE, POLICY, NOTHING_NESTED);
    expect(verdict).toMatchObject({ decision: 'delete', reason: 'idle-clean' });
    expect(verdict.detail).toContain('its branch has no commit yet');
  });
});
