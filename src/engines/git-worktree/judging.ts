import path from 'node:path';
import type { NestedGitEntries } from '../../safety/walk/walk.js';
import type { GitFacts } from './evidence.js';
import type { NestedRepositories } from './nested.js';
import type { WorktreeChanges } from './status.js';

// What a judge reads from a worktree's gathered facts. Pure, like the judges: nothing here starts
// git or touches the disk, so a judge may import it.

/** The refs that hold HEAD, less the worktree's own branch. */
export function otherRefs(facts: GitFacts): string[] {
  return facts.containingRefs.filter((ref) => ref !== facts.head.branch);
}

export function shortCommit(commit: string | null): string {
  return commit ? commit.slice(0, 12) : '(no commit)';
}

export function branchName(ref: string | null): string {
  return ref ? ref.replace(/^refs\/heads\//, '') : 'a detached HEAD';
}

export function isClean(changes: WorktreeChanges): boolean {
  return changes.changed === 0 && changes.untracked === 0 && changes.flagged === 0;
}

export function describeChanges(changes: WorktreeChanges): string {
  const parts: string[] = [];
  if (changes.changed > 0) parts.push(`${changes.changed} uncommitted change${changes.changed === 1 ? '' : 's'}`);
  if (changes.untracked > 0) parts.push(`${changes.untracked} untracked file${changes.untracked === 1 ? '' : 's'}`);
  if (changes.flagged > 0)
    parts.push(
      `${changes.flagged} change${changes.flagged === 1 ? '' : 's'} to files flagged assume-unchanged or skip-worktree, which git status does not show`,
    );
  const more = changes.changed + changes.untracked + changes.flagged > changes.sample.length ? ', …' : '';
  return `${parts.join(' and ')} (${changes.sample.join(', ')}${more})`;
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
