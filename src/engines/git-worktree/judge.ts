import { formatDuration } from '../../util/duration.js';
import type { OwnerJudgement } from '../../core/types.js';
import type { WorktreeEvidence } from './evidence.js';
import {
  branchName,
  describeChanges,
  describeNested,
  isClean,
  nestedRepositories,
  otherRefs,
  shortCommit,
} from './judging.js';
import type { NewestWrite } from './idle.js';
import type { NestedScan } from './nested.js';
import { describeUnheldRefs, unheldWorktreeRefs } from './worktree-refs-held.js';

export interface IdlePolicy {
  set: string;
  idleAfterMs: number;
  nowMs: number;
}

/**
 * The rule for a worktree of a tool with no database to ask. Pure: the evidence, the newest write,
 * the nested `.git` entries its walk saw and the clock are passed in. A worktree goes only when it
 * is not locked, idle past idleAfter, in the middle of no rebase, merge or bisect, clean (untracked
 * files count, and so do edits to files flagged assume-unchanged or skip-worktree), free of
 * submodules and nested repositories, and its HEAD and every commit its own refs name are held by
 * another ref.
 */
export function judgeSetWorktree(
  evidence: WorktreeEvidence,
  newest: NewestWrite,
  policy: IdlePolicy,
  nested: NestedScan,
): OwnerJudgement {
  if (evidence.state === 'unlinked') return { decision: 'refused', reason: evidence.problem, detail: evidence.detail };
  const { link } = evidence;
  if (link.lockedReason !== null) {
    const why = link.lockedReason ? ` (${link.lockedReason})` : '';
    return {
      decision: 'kept',
      reason: 'git-locked',
      detail: `the worktree is git-locked${why}: its tool still claims it`,
    };
  }
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
  if (!evidence.git)
    return {
      decision: 'refused',
      reason: evidence.unreadableContent ? 'unreadable-content' : 'git-failed',
      detail: `git could not examine it: ${evidence.gitError ?? 'no answer'}`,
    };
  const git = evidence.git;
  if (git.operation)
    return {
      decision: 'unfinished',
      reason: 'operation-in-progress',
      detail: `${git.operation}: finish or abort it first`,
    };
  // Before the status: an untracked nested clone is better named for what it is.
  const repositories = nested.ok ? nestedRepositories(evidence.link.path, nested.found, git.gitlinks) : null;
  if (repositories && repositories.count > 0)
    return {
      decision: 'unfinished',
      reason: 'nested-repository',
      detail: `the worktree holds ${describeNested(repositories)}; its commits may be pushed nowhere`,
    };
  const head = `HEAD ${shortCommit(git.head.commit)} on ${branchName(git.head.branch)}`;
  const unheld = git.head.commit !== null && otherRefs(git).length === 0;
  const stake =
    git.commitsOnlyHere === null
      ? ''
      : ` (${git.commitsOnlyHere} commit${git.commitsOnlyHere === 1 ? '' : 's'} nowhere else)`;
  if (!isClean(git.changes)) {
    const also = unheld ? `; ${head} is in no other branch, remote-tracking branch or tag${stake}` : '';
    return {
      decision: 'unfinished',
      reason: 'uncommitted-changes',
      detail: `the worktree holds ${describeChanges(git.changes)}${also}`,
    };
  }
  if (unheld) {
    return {
      decision: 'unfinished',
      reason: 'unique-commits',
      detail: `${head} is contained in no other branch, remote-tracking branch or tag${stake}: push or merge it first`,
    };
  }
  const ownRefs = unheldWorktreeRefs(git, git.head.branch);
  if (ownRefs.length > 0)
    return {
      decision: 'unfinished',
      reason: 'unique-commits',
      detail: `${describeUnheldRefs(ownRefs)}: push, merge or branch them first`,
    };
  if (!nested.ok)
    return {
      decision: 'refused',
      reason: 'unreadable',
      detail: `whether a git repository is nested inside cannot be told: ${nested.error}`,
    };
  if (git.submodule)
    return {
      decision: 'refused',
      reason: 'has-submodule',
      detail: `${git.submodule}; its own unpushed work cannot be seen from here`,
    };
  const heldBy =
    git.head.commit === null
      ? 'the branch has no commit yet'
      : `${head} is also in ${otherRefs(git).slice(0, 2).join(', ')}`;
  const kept = git.head.branch ? `; branch ${branchName(git.head.branch)} stays` : '';
  return {
    decision: 'delete',
    reason: 'idle-clean',
    detail: `idle for ${(idleFor / 86_400_000).toFixed(1)}d, past ${limit}; clean, not locked, nothing in progress, and ${heldBy}${kept}`,
  };
}
