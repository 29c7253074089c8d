import { git } from '../git/git.js';
import type { ApplyContext, OwnerJudgement, Removal } from '../core/types.js';
import { lstatOrNull } from '../safety/fs.js';
import { examineWorktree, type WorktreeEvidence } from './evidence.js';

export interface WorktreeRemovalPlan {
  /** The evidence the judgement was made on. */
  judged: Extract<WorktreeEvidence, { state: 'linked' }>;
  /** The provider's judge, run again on fresh evidence right before the removal. */
  rejudge(fresh: WorktreeEvidence): OwnerJudgement;
  /** Folders of the owner's that go with the worktree (Owl's worktree-config/<id>/). */
  alsoRemove?: string[];
}

/**
 * `git worktree remove <path>` in the owner repository, as the owner: never `--force`, so git
 * itself refuses a dirty or locked tree, and no branch is ever deleted. The evidence is read again
 * first and judged again: a commit, a lock or a change made since the plan stops the removal.
 */
export function gitWorktreeRemoval(plan: WorktreeRemovalPlan): Removal {
  return {
    type: 'custom',
    apply: async (ctx: ApplyContext) => {
      const { link } = plan.judged;
      const fresh = await examineWorktree(link.path);
      const verdict = plan.rejudge(fresh);
      if (verdict.decision !== 'delete') throw new Error(`changed since it was judged, left alone: ${verdict.detail}`);
      if (fresh.state !== 'linked' || fresh.link.adminDir !== link.adminDir)
        throw new Error(`${link.path} now belongs to another admin entry; left alone`);
      if (fresh.git?.head.commit !== plan.judged.git?.head.commit)
        throw new Error(`HEAD of ${link.path} moved since it was judged; left alone`);
      await git(['worktree', 'remove', link.path], { cwd: link.ownerRepo, owner: ctx.owner });
      if (await lstatOrNull(link.path)) throw new Error(`git worktree remove left ${link.path} in place`);
      for (const extra of plan.alsoRemove ?? []) if (await lstatOrNull(extra)) await ctx.removeTree(extra);
    },
  };
}
