import type { OwnerJudgement } from '../../model/types.js';
import { isBeyondClock } from '../../safety/clock.js';
import type { WorktreeEvidence } from '../../engines/git-worktree/evidence.js';
import { checkWorktree, heldDetail } from '../../engines/git-worktree/checklist.js';
import type { NestedScan } from '../../engines/git-worktree/nested.js';
import type { DaemonLiveness } from './daemon.js';
import type { ReviewAfter } from './settings.js';
import type { OwlJob } from './state.js';

/** What the rule needs to know besides the job itself; `nowMs` keeps it pure. */
export interface OwlRuleContext {
  nowMs: number;
  reviewAfter: ReviewAfter;
  /** Null when no job needed it (the daemon is only asked about when a job is active). */
  daemon: DaemonLiveness | null;
  lastRunEnded: ReadonlyMap<number, number>;
  openRuns: ReadonlyMap<number, number[]>;
}

const REMOVABLE = new Set(['done', 'cancelled']);
const WAITING = new Set(['pending', 'blocked', 'exhausted']);

/** True when ADR-0015 lets the worktree go (subject to what git says): job done, cancelled, or gone. */
export function isRemovableJob(job: OwlJob | null): boolean {
  return job === null || REMOVABLE.has(job.state);
}

/** The judgement of a job that still owns its worktree (every state but done and cancelled). */
export function judgeLiveJob(job: OwlJob, ctx: OwlRuleContext): OwnerJudgement {
  const name = `job ${job.id}`;
  if (WAITING.has(job.state))
    return { decision: 'kept', reason: 'job-open', detail: `${name} is ${job.state}; Owl still owns its worktree` };
  if (job.state === 'review') return judgeReview(job, ctx);
  if (job.state === 'active') return judgeActive(job, ctx);
  return {
    decision: 'kept',
    reason: 'job-state-unknown',
    detail: `${name} is in state ${JSON.stringify(job.state)}, which is none of Owl's known states; left alone`,
  };
}

function judgeReview(job: OwlJob, ctx: OwlRuleContext): OwnerJudgement {
  const ended = ctx.lastRunEnded.get(job.id);
  const since = ended ?? job.createdMs;
  const what = ended !== undefined ? 'its last run ended' : 'it was created';
  if (since === null) {
    return {
      decision: 'kept',
      reason: 'job-open',
      detail: `job ${job.id} is in review; no run end or creation time is recorded to age it by`,
    };
  }
  if (isBeyondClock(since, ctx.nowMs)) {
    return {
      decision: 'refused',
      reason: 'clock-skew',
      detail: `job ${job.id} is in review, but ${what} at ${new Date(since).toISOString()} by owl.db, ahead of this pass's clock (${new Date(ctx.nowMs).toISOString()}): how long it has waited cannot be told`,
    };
  }
  const waited = ctx.nowMs - since;
  const limit = ctx.reviewAfter.source;
  if (waited > ctx.reviewAfter.ms) {
    return {
      decision: 'unfinished',
      reason: 'review-overdue',
      detail: `job ${job.id} has waited in review since ${what} at ${new Date(since).toISOString()}, longer than ${limit}: accept or drop it in Owl`,
    };
  }
  return {
    decision: 'kept',
    reason: 'job-open',
    detail: `job ${job.id} is in review since ${what} at ${new Date(since).toISOString()}, within ${limit}`,
  };
}

function judgeActive(job: OwlJob, ctx: OwlRuleContext): OwnerJudgement {
  const daemon = ctx.daemon;
  if (daemon?.state === 'live')
    return {
      decision: 'kept',
      reason: 'job-open',
      detail: `job ${job.id} is active and owld accepts connections at ${daemon.socket}`,
    };
  if (!daemon || daemon.state === 'unknown') {
    const why = daemon?.state === 'unknown' ? daemon.why : 'the daemon was not probed';
    return {
      decision: 'kept',
      reason: 'job-open',
      detail: `job ${job.id} is active and owld's liveness is unknown (${why}); given the benefit of the doubt`,
    };
  }
  const open = ctx.openRuns.get(job.id) ?? [];
  const runs =
    open.length > 0 ? `its run ${open.join(', ')} was left open by a daemon that died` : 'no run of it is open';
  return {
    decision: 'unfinished',
    reason: 'active-without-daemon',
    detail: `job ${job.id} is active but no owld socket accepts a connection (${daemon.tried.join(', ')}); ${runs}: restart Owl or settle the job`,
  };
}

/**
 * The judgement of a worktree whose job is done, cancelled or gone: the worktree checklist
 * (src/engines/git-worktree/checklist.ts), its own branch counting as a holder of its HEAD, since
 * Owl keeps the branch once a job is accepted.
 */
export function judgeRemovableWorktree(
  job: OwlJob | null,
  evidence: WorktreeEvidence,
  nested: NestedScan,
): OwnerJudgement {
  const owner = job === null ? 'no job in owl.db matches it' : `job ${job.id} is ${job.state}`;
  const policy = { owner, ownBranchHolds: true } as const;
  const failed = checkWorktree(evidence, nested, policy);
  if (failed) return failed;
  const reason = job === null ? 'job-vanished' : job.state === 'done' ? 'job-done' : 'job-cancelled';
  return {
    decision: 'delete',
    reason,
    detail: `${owner}; the worktree is clean, nothing is in progress, and ${heldDetail(evidence, policy)}`,
  };
}
