import path from 'node:path';
import { errorMessage } from '../core/errors.js';
import { measureTree, type NestedGitEntries, type TreeFacts } from '../safety/walk.js';

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

/**
 * The nested repositories that are not registered submodules (a gitlink of the index at that path
 * or above it: a submodule's own submodules are its business). An ignored clone counts like any
 * other: it may hold commits no one pushed. Entries past the ones the walk named cannot be told
 * apart, so they count.
 */
export function nestedRepositories(
  worktree: string,
  found: NestedGitEntries,
  gitlinks: readonly string[],
): NestedRepositories {
  const registered = gitlinks.map((link) => link.split('/'));
  const sample: string[] = [];
  let count = found.count - found.paths.length;
  for (const entry of found.paths) {
    const holder = path.relative(worktree, path.dirname(entry)).split(path.sep);
    if (registered.some((link) => link.every((part, k) => holder[k] === part))) continue;
    count += 1;
    if (sample.length < 3) sample.push(path.relative(worktree, entry));
  }
  return { count, sample };
}

export function describeNested(nested: NestedRepositories): string {
  const more = nested.count > nested.sample.length ? ', …' : '';
  const what = nested.count === 1 ? 'a git repository' : `${nested.count} git repositories`;
  return `${what} that no registered submodule accounts for (${nested.sample.join(', ')}${more})`;
}
