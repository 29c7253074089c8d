import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { OwnerJudgement, RootStatus } from '../../model/types.js';
import { durationMs } from '../../util/duration.js';
import { gatherEvidence, pidDomain, tracesOf, type Traces } from './evidence.js';
import {
  judgeEmptySlugFolder,
  judgeSessionFolders,
  judgeSlugWithSessions,
  withProblems,
  type ClaudeEvidence,
} from './judge.js';
import { claudeUsers, locateRoots, type ForeignRoot, type TaskRoot } from './locations.js';
import { deletedButOpen } from './open-deleted.js';
import { sessionRemoval, type Target } from './removal.js';
import { retentionItems } from './retention.js';
import { isEmpty, listRoot, type SlugListing } from './scan.js';
import { stateReports } from './state-report.js';

/**
 * Claude Code's background task output under `claude-<uid>`, judged by its registry of live sessions
 * and /proc; and its own retention in its config folders, where it failed to apply it.
 */
export const claudeCodeGather: Pick<Provider, 'gather' | 'claimedAreas'> = {
  async claimedAreas(ctx) {
    return locateRoots(claudeUsers(ctx.homes), ctx).roots.map((root) => ({ owner: 'claude-code', folder: root.path }));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const users = claudeUsers(ctx.homes);
    const { roots, statuses, foreign } = locateRoots(users, ctx);
    const out: Gathering = { roots: [...statuses], candidates: foreign.map(foreignRoot) };
    const traces: Traces = tracesOf(ctx.processes);
    const domain = pidDomain(traces.procRoot);
    for (const user of users) {
      const mine = roots.filter((root) => root.user === user);
      const evidence = await gatherEvidence(user, mine, traces, domain, ctx.env);
      for (const root of mine) {
        try {
          const found = await gatherRoot(root, evidence, traces, ctx);
          out.roots.push(found.status);
          out.candidates.push(...found.candidates);
        } catch (err) {
          ctx.log.warn({ err, root: root.path }, 'task output root unreadable');
          out.roots.push({
            provider: 'claude-code',
            root: root.path,
            ok: false,
            error: `${root.path}: ${errorMessage(err)}`,
          });
        }
      }
      const retention = await retentionItems(evidence, ctx);
      out.candidates.push(...retention.candidates);
      out.candidates.push(...stateReports(user, evidence, retention.conversations, ctx));
    }
    return out;
  },
};

async function gatherRoot(
  root: TaskRoot,
  shared: ClaudeEvidence,
  traces: Traces,
  ctx: GatherContext,
): Promise<{ status: RootStatus; candidates: Candidate[] }> {
  const listing = listRoot(root);
  const evidence = withProblems(shared, listing.problems);
  const verdicts = judgeSessionFolders(
    listing.slugs.flatMap((slug) => slug.sessions),
    listing.links,
    evidence,
  );
  const candidates: Candidate[] = [];
  const add = (target: Target, judgement: OwnerJudgement) =>
    candidates.push({
      provider: 'claude-code',
      kind: 'task-output',
      path: target.path,
      root: root.path,
      judgement,
      homeOwner: root.owner,
      ...(judgement.decision === 'delete' ? { removal: sessionRemoval(root, target, ctx.env) } : {}),
    });

  for (const leftover of [...listing.quarantines, ...listing.slugs.flatMap((slug) => slug.quarantines)])
    candidates.push(quarantineCandidate(leftover, root));
  for (const slug of listing.slugs) {
    if (isEmpty(slug)) {
      // A deleted output still open in it is reported on its own (below); the folder waits for its
      // writer. Where processes cannot be seen at all it is judged like any folder, and refused for it.
      const holders = ctx.holdersOf(slug.path);
      if (holders === null || holders.length === 0)
        add({ path: slug.path, kind: 'empty-slug', slug: slug.slug }, judgeEmptySlugFolder(slug.slug, evidence));
    } else if (await goesWhole(slug, verdicts, ctx))
      add(
        { path: slug.path, kind: 'slug', slug: slug.slug },
        judgeSlugWithSessions(
          slug.slug,
          slug.sessions.map((session) => [session, verdicts.get(session.path) as OwnerJudgement]),
        ),
      );
    else
      for (const session of slug.sessions)
        add({ path: session.path, kind: 'session', slug: slug.slug }, verdicts.get(session.path) as OwnerJudgement);
  }
  candidates.push(...deletedButOpen(root, traces, shared));
  const status: RootStatus = { provider: 'claude-code', root: root.path, ok: evidence.problems.length === 0 };
  if (!status.ok) status.error = evidence.problems.join('; ');
  return { status, candidates };
}

/**
 * A slug folder goes in the same pass as its last session folders: it is the item itself (its
 * sessions with it) when every session folder in it is dead, it holds nothing else, its newest
 * write is older than minAge and no process has anything open or its working directory in it.
 * Otherwise each session folder is an item of its own, and the slug folder goes with the last.
 */
async function goesWhole(
  slug: SlugListing,
  verdicts: ReadonlyMap<string, OwnerJudgement>,
  ctx: GatherContext,
): Promise<boolean> {
  if (slug.sessions.length === 0 || slug.others > 0 || slug.quarantines.length > 0) return false;
  if (!slug.sessions.every((session) => verdicts.get(session.path)?.decision === 'delete')) return false;
  try {
    await ctx.whenMeasured?.([slug.path]);
    if (heldInside(slug, ctx)) return false;
    const tree = ctx.measure(slug.path);
    return !tree.error && !tree.vanished && ctx.now.getTime() - tree.newestWriteMs >= durationMs(ctx.config.minAge);
  } catch {
    return false;
  }
}

/** Whether a process has its working directory or an open file (deleted or not) in the slug folder. */
function heldInside(slug: SlugListing, ctx: GatherContext): boolean {
  const holders = ctx.holdersOf(slug.path);
  return holders === null || holders.length > 0;
}

/**
 * A `claude-<uid>` that is not its uid's, or a link to it another user made (rules 20 and 28): the
 * location itself is refused, as an item without a path so that nothing under it is looked at,
 * not even by the safety engine's walk.
 */
function foreignRoot(root: ForeignRoot): Candidate {
  return {
    provider: 'claude-code',
    kind: 'task-output',
    path: null,
    root: null,
    judgement: {
      decision: 'refused',
      reason: 'foreign-owner',
      detail: `${root.path} is not read as its uid's task output, and nothing under it is touched: ${root.detail}`,
    },
  };
}

function quarantineCandidate(leftover: string, root: TaskRoot): Candidate {
  return {
    provider: 'claude-code',
    kind: 'quarantine',
    path: leftover,
    root: root.path,
    homeOwner: root.owner,
    judgement: {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(leftover)} is a quarantine an earlier pass proved dead and did not finish deleting`,
    },
  };
}
