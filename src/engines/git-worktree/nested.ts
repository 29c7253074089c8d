import { errorMessage } from '../../model/errors.js';
import { measureTree, type NestedGitEntries, type TreeFacts } from '../../safety/walk/walk.js';

/** The `.git` entries below a worktree's top, as its walk found them, or why the walk could not tell. */
export type NestedScan = { ok: true; found: NestedGitEntries } | { ok: false; error: string };

/** Git repositories inside a worktree that are none of its registered submodules. */
export interface NestedRepositories {
  count: number;
  /** A few of them, relative to the worktree. */
  sample: string[];
}

/**
 * What the walk of the worktree (shared with the safety engine through the pass's cache) saw of
 * nested `.git` entries. A walk that could not read everything may have missed one.
 */
export function scanNested(worktree: string, measure: (root: string) => TreeFacts = measureTree): NestedScan {
  try {
    const facts = measure(worktree);
    if (facts.error) return { ok: false, error: facts.error };
    return { ok: true, found: facts.nestedGit };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}
