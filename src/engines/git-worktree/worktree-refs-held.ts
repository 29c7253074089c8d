import type { HeldRef } from './ancestry.js';
import type { GitFacts } from './evidence.js';
import { shortCommit } from './judging.js';

/**
 * The per-worktree refs whose commit no ref that outlives the worktree holds. `beside` is the
 * worktree's own branch where the rule wants another ref than it (the worktree sets), else null.
 */
export function unheldWorktreeRefs(git: GitFacts, beside: string | null): HeldRef[] {
  return git.worktreeRefs.filter((ref) => ref.containingRefs.every((name) => name === beside));
}

export function describeUnheldRefs(refs: readonly HeldRef[]): string {
  const named = refs.slice(0, 3).map((ref) => `${ref.name} at ${shortCommit(ref.commit)}`);
  const more = refs.length > named.length ? ', …' : '';
  const which = refs.length === 1 ? 'its own ref' : `its own refs`;
  return `${which} ${named.join(', ')}${more} ${refs.length === 1 ? 'holds a commit' : 'hold commits'} that no branch, remote-tracking branch or tag contains, and ${refs.length === 1 ? 'it dies' : 'they die'} with the worktree`;
}
