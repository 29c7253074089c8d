import type { OwnerJudgement } from '../../core/types.js';
import { isBeyondClock } from '../../safety/clock.js';
import type { WorktreeEvidence } from '../../engines/git-worktree/evidence.js';
import {
  branchName,
  describeChanges,
  describeNested,
  isClean,
  nestedRepositories,
  shortCommit,
} from '../../engines/git-worktree/judging.js';
import type { NestedScan } from '../../engines/git-worktree/nested.js';
import { describeUnheldRefs, unheldWorktreeRefs } from '../../engines/git-worktree/worktree-refs-held.js';
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
 * The judgement of a worktree whose job is done, cancelled or gone, on what git says of it and on
 * the nested `.git` entries its walk saw.
 */
export function judgeRemovableWorktree(
  job: OwlJob | null,
  evidence: WorktreeEvidence,
  nested: NestedScan,
): OwnerJudgement {
  const owner = job === null ? 'no job in owl.db matches it' : `job ${job.id} is ${job.state}`;
  if (evidence.state === 'unlinked')
    return { decision: 'refused', reason: evidence.problem, detail: `${owner}, but ${evidence.detail}` };
  const { link } = evidence;
  if (!evidence.git) {
    return {
      decision: 'refused',
      reason: evidence.unreadableContent ? 'unreadable-content' : 'git-failed',
      detail: `${owner}, but git could not examine it: ${evidence.gitError ?? 'no answer'}`,
    };
  }
  const git = evidence.git;
  if (link.lockedReason !== null) {
    const why = link.lockedReason ? ` (${link.lockedReason})` : '';
    return {
      decision: 'refused',
      reason: 'git-locked',
      detail: `${owner}, but the worktree is git-locked${why}; git worktree remove would refuse it`,
    };
  }
  if (git.operation)
    return {
      decision: 'unfinished',
      reason: 'operation-in-progress',
      detail: `${owner}, but ${git.operation}: finish or abort it first`,
    };
  const repositories = nested.ok ? nestedRepositories(link.path, nested.found, git.gitlinks) : null;
  if (repositories && repositories.count > 0)
    return {
      decision: 'unfinished',
      reason: 'nested-repository',
      detail: `${owner}, but the worktree holds ${describeNested(repositories)}; its commits may be pushed nowhere`,
    };
  const head = `HEAD ${shortCommit(git.head.commit)} on ${branchName(git.head.branch)}`;
  const unheld = git.head.commit !== null && git.containingRefs.length === 0;
  const atStake = unheld ? `; ${head} is in no branch or tag${countText(git.commitsOnlyHere)}` : '';
  if (!isClean(git.changes)) {
    return {
      decision: 'unfinished',
      reason: 'uncommitted-changes',
      detail: `${owner}, but the worktree holds ${describeChanges(git.changes)}${atStake}`,
    };
  }
  if (unheld) {
    return {
      decision: 'unfinished',
      reason: 'unique-commits',
      detail: `${owner}, but ${head} is contained in no branch, remote-tracking branch or tag${countText(git.commitsOnlyHere)}`,
    };
  }
  const ownRefs = unheldWorktreeRefs(git, null);
  if (ownRefs.length > 0)
    return { decision: 'unfinished', reason: 'unique-commits', detail: `${owner}, but ${describeUnheldRefs(ownRefs)}` };
  if (!nested.ok)
    return {
      decision: 'refused',
      reason: 'unreadable',
      detail: `${owner}, but whether a git repository is nested inside cannot be told: ${nested.error}`,
    };
  if (git.submodule)
    return {
      decision: 'refused',
      reason: 'has-submodule',
      detail: `${owner}, but ${git.submodule}; git worktree remove refuses such a tree`,
    };
  const reason = job === null ? 'job-vanished' : job.state === 'done' ? 'job-done' : 'job-cancelled';
  const kept = git.head.branch ? `; branch ${branchName(git.head.branch)} stays` : '';
  return {
    decision: 'delete',
    reason,
    detail: `${owner}; the worktree is clean, nothing is in progress, and ${git.head.commit === null ? 'its branch has no commit yet' : `${head} is held by ${git.containingRefs.slice(0, 2).join(', ')}`}${kept}`,
  };
}

function countText(count: number | null): string {
  if (count === null) return '';
  return ` (${count} commit${count === 1 ? '' : 's'} only here)`;
}
