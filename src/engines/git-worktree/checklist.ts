import type { OwnerJudgement } from '../../model/types.js';
import type { LockAnswer } from '../../provider-api/provider.js';
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
import type { NestedScan } from './nested.js';
import { describeUnheldRefs, unheldWorktreeRefs } from './worktree-refs-held.js';

/** How a tool's worktree is proven safe to remove, besides its owner's record. */
export interface ChecklistPolicy {
  /** How a detail begins: who says the worktree is done (`job 7 is done, but …`), or nothing. */
  owner?: string;
  /**
   * Whether the worktree's own branch holds its HEAD: a tool that keeps the branch once its job is
   * accepted (Coding Owl) counts it; a set of another tool's worktrees needs another branch, a
   * remote-tracking branch or a tag, as its branch may be deleted with the worktree by that tool.
   */
  ownBranchHolds: boolean;
  /**
   * What the worktree's tool says of its git lock, where it has a rule for its own locks: stale (the
   * checks run with the lock in place), held (its judgement), or not its own (null: `git-locked`).
   */
  lock?: LockAnswer;
}

/**
 * The checks every worktree passes before `git worktree remove`, for every provider: linked to an
 * owner repository, examined by git, not git-locked (a lock is its tool's claim, and git refuses
 * the removal: `refused`, so that a lock left by a tool that died shows among the refusals; but a
 * lock its tool's own rule proves stale, whose checks then run with the lock in place), no
 * rebase, merge or bisect under way, no nested repository, clean (untracked files count, and so do
 * edits to files flagged assume-unchanged or skip-worktree), HEAD and every commit its own refs
 * name held by a ref that outlives it, and no submodule. Null when every one holds; else the first
 * that does not, as the owner's judgement. Pure.
 */
export function checkWorktree(
  evidence: WorktreeEvidence,
  nested: NestedScan,
  policy: ChecklistPolicy,
): Exclude<OwnerJudgement, { decision: 'delete' }> | null {
  const but = (detail: string) => (policy.owner ? `${policy.owner}, but ${detail}` : detail);
  if (evidence.state === 'unlinked')
    return { decision: 'refused', reason: evidence.problem, detail: but(evidence.detail) };
  const { link } = evidence;
  if (link.lockedReason !== null && policy.lock?.state === 'held')
    return { ...policy.lock.judgement, detail: but(policy.lock.judgement.detail) };
  if (link.lockedReason !== null && policy.lock?.state !== 'stale') {
    const why = link.lockedReason ? ` (${link.lockedReason})` : '';
    return {
      decision: 'refused',
      reason: 'git-locked',
      detail: but(`the worktree is git-locked${why}: its tool still claims it, and git worktree remove refuses it`),
    };
  }
  if (!evidence.git)
    return {
      decision: 'refused',
      reason: evidence.unreadableContent ? 'unreadable-content' : 'git-failed',
      detail: but(`git could not examine it: ${evidence.gitError ?? 'no answer'}`),
    };
  const git = evidence.git;
  if (git.operation)
    return {
      decision: 'unfinished',
      reason: 'operation-in-progress',
      detail: but(`${git.operation}: finish or abort it first`),
    };
  // Before the status: an untracked nested clone is better named for what it is.
  const repositories = nested.ok ? nestedRepositories(link.path, nested.found, git.gitlinks) : null;
  if (repositories && repositories.count > 0)
    return {
      decision: 'unfinished',
      reason: 'nested-repository',
      detail: but(`the worktree holds ${describeNested(repositories)}; its commits may be pushed nowhere`),
    };
  const head = `HEAD ${shortCommit(git.head.commit)} on ${branchName(git.head.branch)}`;
  const holders = policy.ownBranchHolds ? git.containingRefs : otherRefs(git);
  const where = policy.ownBranchHolds
    ? 'no branch, remote-tracking branch or tag'
    : 'no other branch, remote-tracking branch or tag';
  const unheld = git.head.commit !== null && holders.length === 0;
  const stake =
    git.commitsOnlyHere === null
      ? ''
      : ` (${git.commitsOnlyHere} commit${git.commitsOnlyHere === 1 ? '' : 's'} nowhere else)`;
  if (!isClean(git.changes)) {
    const also = unheld ? `; ${head} is in ${where}${stake}` : '';
    return {
      decision: 'unfinished',
      reason: 'uncommitted-changes',
      detail: but(`the worktree holds ${describeChanges(git.changes)}${also}`),
    };
  }
  if (unheld)
    return {
      decision: 'unfinished',
      reason: 'unique-commits',
      detail: but(`${head} is contained in ${where}${stake}: push or merge it first`),
    };
  const ownRefs = unheldWorktreeRefs(git, policy.ownBranchHolds ? null : git.head.branch);
  if (ownRefs.length > 0)
    return {
      decision: 'unfinished',
      reason: 'unique-commits',
      detail: but(`${describeUnheldRefs(ownRefs)}: push, merge or branch them first`),
    };
  if (!nested.ok)
    return {
      decision: 'refused',
      reason: 'unreadable',
      detail: but(`whether a git repository is nested inside cannot be told: ${nested.error}`),
    };
  if (git.submodule)
    return {
      decision: 'refused',
      reason: 'has-submodule',
      detail: but(
        `${git.submodule}; its own unpushed work cannot be seen from here, and git worktree remove refuses such a tree`,
      ),
    };
  return null;
}

/** What a worktree that passed every check keeps, for the detail of its deletion. */
export function heldDetail(evidence: WorktreeEvidence, policy: ChecklistPolicy): string {
  const git = evidence.state === 'linked' ? evidence.git : null;
  if (!git) return '';
  const holders = policy.ownBranchHolds ? git.containingRefs : otherRefs(git);
  const head = `HEAD ${shortCommit(git.head.commit)} on ${branchName(git.head.branch)}`;
  const heldBy =
    git.head.commit === null
      ? 'its branch has no commit yet'
      : `${head} is ${policy.ownBranchHolds ? 'held by' : 'also in'} ${holders.slice(0, 2).join(', ')}`;
  const kept = git.head.branch ? `; branch ${branchName(git.head.branch)} stays` : '';
  return `${heldBy}${kept}`;
}
