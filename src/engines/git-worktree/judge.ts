import { formatDuration } from '../../util/duration.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { LockAnswer } from '../../provider-api/provider.js';
import type { WorktreeEvidence } from './evidence.js';
import { checkWorktree, heldDetail } from './checklist.js';
import type { NewestWrite } from './idle.js';
import type { NestedScan } from './nested.js';

export interface IdlePolicy {
  set: string;
  idleAfterMs: number;
  nowMs: number;
}

/**
 * The rule for a worktree of a tool with no database to ask. Pure: the evidence, the newest write,
 * the nested `.git` entries its walk saw and the clock are passed in. Signs of life first: a
 * worktree written within idleAfter (its admin entry included) is kept; an idle one goes only when
 * every check of the worktree checklist holds (checklist.ts), its HEAD held by a ref other than its
 * own branch. `lock` is what its tool says of its git lock (stale: checked with the lock in place).
 */
export function judgeSetWorktree(
  evidence: WorktreeEvidence,
  newest: NewestWrite,
  policy: IdlePolicy,
  nested: NestedScan,
  lock: LockAnswer = null,
): OwnerJudgement {
  if (evidence.state === 'unlinked') return { decision: 'refused', reason: evidence.problem, detail: evidence.detail };
  if (newest.error)
    return { decision: 'refused', reason: 'unreadable', detail: `its age cannot be told: ${newest.error}` };
  const idleFor = newest.ms === null ? null : policy.nowMs - newest.ms;
  const limit = `idleAfter ${formatDuration(policy.idleAfterMs)} of set ${policy.set}`;
  if (idleFor === null || idleFor <= policy.idleAfterMs) {
    const when = newest.ms === null ? 'an unknown time' : new Date(newest.ms).toISOString();
    return {
      decision: 'kept',
      reason: 'not-idle',
      detail: `last written at ${when} (worktree or admin entry), within ${limit}`,
    };
  }
  const failed = checkWorktree(evidence, nested, { ...SET_CHECKS, lock });
  if (failed) return failed;
  const locked =
    evidence.link.lockedReason !== null && lock?.state === 'stale'
      ? `its git lock is stale (${lock.detail}): git unlocks it right before the removal`
      : 'not locked';
  return {
    decision: 'delete',
    reason: 'idle-clean',
    detail: `idle for ${(idleFor / 86_400_000).toFixed(1)}d, past ${limit}; clean, ${locked}, nothing in progress, and ${heldDetail(evidence, SET_CHECKS)}`,
  };
}

const SET_CHECKS = { ownBranchHolds: false } as const;
