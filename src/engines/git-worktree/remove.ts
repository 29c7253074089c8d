import { RemovalStopped, stopFor } from '../../model/errors.js';
import type { GuardContext, Removal, StaleLock } from '../../provider-api/candidate.js';
import type { OwnerJudgement } from '../../model/types.js';
import { examineWorktree, type WorktreeEvidence } from './evidence.js';
import { readLockBytes } from './link.js';

export interface WorktreeRemovalPlan {
  /** The evidence the judgement was made on. */
  judged: Extract<WorktreeEvidence, { state: 'linked' }>;
  /**
   * The provider's judge, run again on fresh evidence right before the removal (with what it reads
   * again of its own record, such as Codex's thread and its writer lock; `ctx` gives a fresh look at
   * the processes).
   */
  rejudge(fresh: WorktreeEvidence, ctx: GuardContext): OwnerJudgement | Promise<OwnerJudgement>;
  /** Folders of the owner's that go with the worktree (Owl's worktree-config/<id>/). */
  alsoRemove?: string[];
  /** A lock its tool left naming a process that is gone: unlocked by the executor right before the removal. */
  unlock?: StaleLock;
}

/**
 * How a worktree proven dead goes: the executor takes the last proof on it and its admin entry,
 * then runs `git worktree remove` (src/git/worktree-remove.ts). Right before, the evidence is read
 * again and judged again: a commit, a lock or a change made since the plan stops the removal, with
 * the verdict of that judgement.
 */
export function gitWorktreeRemoval(plan: WorktreeRemovalPlan): Removal {
  const { link } = plan.judged;
  return {
    type: 'git-worktree',
    worktree: link.path,
    ownerRepo: link.ownerRepo,
    adminDir: link.adminDir,
    ...(plan.alsoRemove ? { alsoRemove: plan.alsoRemove } : {}),
    ...(plan.unlock ? { unlock: plan.unlock } : {}),
    guard: {
      async recheck(ctx) {
        // As whom the executor removes it (rule 20): whom its status ran as when it was judged.
        const fresh = await examineWorktree(link.path, ctx.owner ?? undefined);
        const verdict = await plan.rejudge(fresh, ctx);
        if (verdict.decision !== 'delete') throw stopFor(verdict);
        if (fresh.state !== 'linked' || fresh.link.adminDir !== link.adminDir)
          throw new RemovalStopped(
            'refused',
            'admin-mismatch',
            `${link.path} now belongs to another admin entry than ${link.adminDir}; left alone`,
          );
        const lock = plan.unlock;
        if (lock && !sameBytes(readLockBytes(link.adminDir), lock.bytes))
          throw new RemovalStopped(
            'refused',
            'changed-during-inspection',
            `the lock ${lock.lockedFile} of ${link.path} changed since it was judged; left alone`,
          );
        if (fresh.git?.head.commit !== plan.judged.git?.head.commit)
          throw new RemovalStopped(
            'refused',
            'changed-during-inspection',
            `HEAD of ${link.path} moved since it was judged; left alone`,
          );
        return undefined;
      },
    },
  };
}

const sameBytes = (now: Uint8Array | null, judged: Uint8Array): boolean =>
  now !== null && Buffer.from(now).equals(Buffer.from(judged));
