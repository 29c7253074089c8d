import { errorMessage } from '../core/errors.js';
import { mapLimit } from '../util/limit.js';
import { commitsOnlyHere, readHead, refsContaining, type HeadState } from './head.js';
import { readWorktreeLink, type LinkProblem, type WorktreeLink } from './link.js';
import { readChanges, type WorktreeChanges } from './status.js';
import { findSubmodule } from './submodules.js';

/** Git processes at once across worktrees: enough to overlap waiting on disk, few enough for a shared box. */
export const GIT_CONCURRENCY = 4;

/** What git says of one worktree, read without writing anything (no optional locks). */
export interface GitFacts {
  changes: WorktreeChanges;
  head: HeadState;
  /** Branches, remote-tracking branches and tags containing the HEAD commit (its own branch included). */
  containingRefs: string[];
  /** Commits reachable from HEAD that no other branch, remote-tracking branch or tag holds. */
  commitsOnlyHere: number | null;
  submodule: string | null;
}

export type WorktreeEvidence =
  | { path: string; state: 'unlinked'; problem: LinkProblem; detail: string }
  | { path: string; state: 'linked'; link: WorktreeLink; git: GitFacts | null; gitError?: string };

/** The refs that hold HEAD, less the worktree's own branch. */
export function otherRefs(facts: GitFacts): string[] {
  return facts.containingRefs.filter((ref) => ref !== facts.head.branch);
}

/** Reads the link of a worktree and asks git about it. */
export async function examineWorktree(worktree: string): Promise<WorktreeEvidence> {
  const linked = await readWorktreeLink(worktree);
  if (!linked.ok) return { path: worktree, state: 'unlinked', problem: linked.problem, detail: linked.detail };
  const { link } = linked;
  try {
    return { path: worktree, state: 'linked', link, git: await readGitFacts(link) };
  } catch (err) {
    return { path: worktree, state: 'linked', link, git: null, gitError: errorMessage(err) };
  }
}

/** Examines many worktrees, a bounded number at a time. */
export function examineWorktrees(worktrees: readonly string[], concurrency = GIT_CONCURRENCY): Promise<WorktreeEvidence[]> {
  return mapLimit(worktrees, concurrency, (worktree) => examineWorktree(worktree));
}

export async function readGitFacts(link: WorktreeLink): Promise<GitFacts> {
  const changes = await readChanges(link.path);
  const head = await readHead(link.path);
  const containing = head.commit ? await refsContaining(link.path, head.commit) : [];
  const facts: GitFacts = { changes, head, containingRefs: containing, commitsOnlyHere: null, submodule: await findSubmodule(link) };
  if (head.commit && otherRefs(facts).length === 0) facts.commitsOnlyHere = await commitsOnlyHere(link.path, head.commit, head.branch);
  return facts;
}

export function shortCommit(commit: string | null): string {
  return commit ? commit.slice(0, 12) : '(no commit)';
}

export function branchName(ref: string | null): string {
  return ref ? ref.replace(/^refs\/heads\//, '') : 'a detached HEAD';
}
