import { GIT_CONCURRENCY } from '../../git/settings.js';
import { asError } from '../../model/errors.js';
import { IncompleteAnswer } from '../../git/git.js';
import type { Owner } from '../../safety/owners/owner.js';
import { mapLimit } from '../../util/limit.js';
import { listKeepingRefs, readAncestry, type Ancestry, type HeldRef } from './ancestry.js';
import type { KeepingRef } from './ref-files.js';
import { compareFlagged, type FlaggedChanges } from './flagged.js';
import { readWorktreeLink, type LinkProblem, type WorktreeLink } from './link.js';
import { operationInProgress } from './operations.js';
import { readWorktreeStatuses, type HeadState, type WorktreeChanges, type WorktreeStatus } from './status.js';
import { findSubmodule, readWorktreeIndex } from './submodules.js';
import { listWorktreeRefs } from './worktree-refs.js';

/** What git says of one worktree, read without writing anything (no optional locks). */
export interface GitFacts {
  /** What `git status` shows, and the files flagged assume-unchanged or skip-worktree that it does not. */
  changes: WorktreeChanges;
  head: HeadState;
  /** Branches, remote-tracking branches and tags containing the HEAD commit (its own branch included). */
  containingRefs: string[];
  /** Commits reachable from HEAD that no other branch, remote-tracking branch or tag holds. */
  commitsOnlyHere: number | null;
  /** Its per-worktree refs, which die with it, and what else holds each one's commit. */
  worktreeRefs: HeldRef[];
  submodule: string | null;
  /** The paths of the index's gitlinks: its registered submodules. */
  gitlinks: string[];
  /** A rebase, merge, cherry-pick, revert or bisect under way, or null. */
  operation: string | null;
}

/** What the worktree's own files say, read beside git status (git only where the files cannot settle it). */
interface LocalFacts {
  submodule: string | null;
  gitlinks: string[];
  flagged: FlaggedChanges;
  operation: string | null;
  worktreeRefs: KeepingRef[];
}

/** The owner of the home a worktree was found in (git runs as that owner), where it is known. */
export type HomeOwnerOf = (worktree: string) => Owner | undefined;

export type WorktreeEvidence =
  | { path: string; state: 'unlinked'; problem: LinkProblem; detail: string }
  | {
      path: string;
      state: 'linked';
      link: WorktreeLink;
      git: GitFacts | null;
      gitError?: string;
      /** git said it could not read part of the worktree or its repository: rule 22. */
      unreadableContent?: boolean;
    };

/** Reads the link of a worktree and asks git about it, as the owner of its home (`homeOwner`) where known. */
export async function examineWorktree(worktree: string, homeOwner?: Owner): Promise<WorktreeEvidence> {
  return (await examineWorktrees([worktree], GIT_CONCURRENCY, () => homeOwner))[0] as WorktreeEvidence;
}

/**
 * Examines many worktrees: their links, then git, a bounded number of processes at a time.
 * `homeOwnerOf` names the owner of the home each was found in, whom git runs as (rule 20).
 */
export async function examineWorktrees(
  worktrees: readonly string[],
  concurrency = GIT_CONCURRENCY,
  homeOwnerOf?: HomeOwnerOf,
): Promise<WorktreeEvidence[]> {
  const linked = worktrees.map((worktree) => readWorktreeLink(worktree));
  const links = linked.flatMap((result) => (result.ok ? [result.link] : []));
  const facts = await readGitFacts(links, concurrency, homeOwnerOf);
  const byPath = new Map(links.map((link, k) => [link.path, facts[k] as GitFacts | Error]));
  return linked.map((result, k): WorktreeEvidence => {
    if (!result.ok)
      return { path: worktrees[k] as string, state: 'unlinked', problem: result.problem, detail: result.detail };
    return withFacts(worktrees[k] as string, result.link, byPath.get(result.link.path) as GitFacts | Error);
  });
}

export function withFacts(worktree: string, link: WorktreeLink, facts: GitFacts | Error): WorktreeEvidence {
  if (facts instanceof Error)
    return {
      path: worktree,
      state: 'linked',
      link,
      git: null,
      gitError: facts.message,
      ...(facts instanceof IncompleteAnswer ? { unreadableContent: true } : {}),
    };
  return { path: worktree, state: 'linked', link, git: facts };
}

/**
 * One `git status` per worktree, started by git a batch at a time (the index is read for gitlinks
 * without git), then the refs and commits of each repository asked once for all of its worktrees.
 * A failure is the answer for the worktrees it concerns, never for the rest: this never rejects.
 */
export async function readGitFacts(
  links: readonly WorktreeLink[],
  concurrency = GIT_CONCURRENCY,
  homeOwnerOf: HomeOwnerOf = () => undefined,
): Promise<Array<GitFacts | Error>> {
  const repositories = new Map<string, number[]>();
  links.forEach((link, k) => {
    const members = repositories.get(link.commonDir);
    if (members) members.push(k);
    else repositories.set(link.commonDir, [k]);
  });
  const groups = [...repositories.values()];
  const cwdOf = (members: readonly number[]) => (links[members[0] as number] as WorktreeLink).path;
  const commonDirOf = (members: readonly number[]) => (links[members[0] as number] as WorktreeLink).commonDir;
  // The ref listings do not depend on the statuses: one at a time, beside them.
  const listings = mapLimit(groups, 1, (members) =>
    listKeepingRefs(cwdOf(members), commonDirOf(members)).catch(asError),
  );
  const [statuses, locals] = await Promise.all([
    readWorktreeStatuses(
      links.map((link) => link.path),
      concurrency,
      undefined,
      homeOwnerOf,
    ),
    mapLimit(links, concurrency, (link) => readLocalFacts(link, homeOwnerOf(link.path)).catch(asError)),
  ]);
  const local = links.map((_, k): { status: WorktreeStatus; own: LocalFacts } | Error => {
    const status = statuses[k] as WorktreeStatus | Error;
    const own = locals[k] as LocalFacts | Error;
    if (status instanceof Error) return status;
    if (own instanceof Error) return own;
    return { status, own };
  });
  const refsOf = await listings;
  const ancestry = new Array<Ancestry | Error>(links.length);
  await mapLimit(
    groups.map((members, g) => ({ members, refs: refsOf[g] as KeepingRef[] | Error })),
    concurrency,
    async ({ members, refs }) => {
      const asked = members.filter((k) => !(local[k] instanceof Error));
      const heads = asked.map((k) => {
        const { status, own } = local[k] as { status: WorktreeStatus; own: LocalFacts };
        return { path: (links[k] as WorktreeLink).path, ...status.head, worktreeRefs: own.worktreeRefs };
      });
      try {
        if (refs instanceof Error) throw refs;
        const answers = asked.length === 0 ? [] : await readAncestry(cwdOf(members), heads, refs);
        for (const [m, k] of asked.entries()) ancestry[k] = answers[m] as Ancestry | Error;
      } catch (err) {
        for (const k of asked) ancestry[k] = asError(err);
      }
    },
  );
  return local.map((read, k) => {
    if (read instanceof Error) return read;
    const held = ancestry[k] as Ancestry | Error;
    if (held instanceof Error) return held;
    const { changes } = read.status;
    const { flagged } = read.own;
    return {
      changes: {
        ...changes,
        flagged: flagged.count,
        sample: [...changes.sample, ...flagged.sample].slice(0, 3),
      },
      head: read.status.head,
      containingRefs: held.containingRefs,
      commitsOnlyHere: held.commitsOnlyHere,
      worktreeRefs: held.worktreeRefs,
      submodule: read.own.submodule,
      gitlinks: read.own.gitlinks,
      operation: read.own.operation,
    };
  });
}

/**
 * The index (gitlinks and flagged entries, read from the file), the flagged files compared with
 * the disk, the markers of an operation in progress, the per-worktree refs: file reads in the
 * common case, where nothing is flagged and the worktree has no refs of its own.
 */
async function readLocalFacts(link: WorktreeLink, homeOwner: Owner | undefined): Promise<LocalFacts> {
  const operation = operationInProgress(link.adminDir);
  const worktreeRefs = await listWorktreeRefs(link);
  const index = await readWorktreeIndex(link);
  const [submodule, flagged] = await Promise.all([
    findSubmodule(link, index),
    compareFlagged(link.path, index.flagged, homeOwner),
  ]);
  return { submodule, gitlinks: index.gitlinks, flagged, operation, worktreeRefs };
}
