import { errorMessage } from '../../core/errors.js';
import type { Candidate, GatherContext, Gathering, Provider, RootStatus } from '../../core/types.js';
import { createTreeCache } from '../../safety/tree-cache.js';
import { readGitFacts, withFacts, type GitFacts, type WorktreeEvidence } from '../../worktree/evidence.js';
import { newestWrite, type NewestWrite } from '../../worktree/idle.js';
import { readWorktreeLink, type LinkResult } from '../../worktree/link.js';
import { scanNested, type NestedScan } from '../../worktree/nested.js';
import { gitWorktreeRemoval } from '../../worktree/remove.js';
import { describeSet, ownerNote } from './describe.js';
import { judgeSetWorktree, type IdlePolicy } from './judge.js';
import { setRoots, worktreesIn, type SetRoot } from './layout.js';

/** Git worktrees that agent tools leave in the built-in and configured sets of roots. */
export const worktreesProvider: Provider = {
  name: 'worktrees',
  async claimedAreas(ctx) {
    return (await setRoots(ctx)).roots.map((root) => ({ owner: `worktrees set ${root.set}`, folder: root.root }));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const found = await setRoots(ctx);
    const roots: RootStatus[] = [...found.problems];
    // No two sets share a folder (the config check refuses it, a root read from a tool's state
    // gives way), so each worktree belongs to one set.
    const nowMs = ctx.now.getTime();
    const items: SetWorktree[] = [];
    for (const root of found.roots) {
      try {
        for (const worktree of await worktreesIn(root.root))
          items.push({
            root,
            worktree,
            policy: { set: root.set, idleAfterMs: root.idleAfterMs, nowMs },
          });
        roots.push({ provider: 'worktrees', root: root.root, ok: true });
      } catch (err) {
        roots.push({
          provider: 'worktrees',
          root: root.root,
          ok: false,
          error: `cannot list ${root.root}: ${errorMessage(err)}`,
        });
      }
    }
    const examined = await examineSetWorktrees(items, ctx);
    const candidates = items.map((item, k) => candidateFor(item, examined[k] as SetWorktreeEvidence));
    return { roots, candidates };
  },
};

interface SetWorktreeEvidence {
  evidence: WorktreeEvidence;
  newest: NewestWrite;
  /** The `.git` entries below the worktree's top, from the same walk as its newest write. */
  nested: NestedScan;
}

/**
 * Reads what the judgements need: the links, then git about every unlocked tree while the trees are
 * walked for their newest writes (git runs in its own processes, the walk here, so on two cores
 * they overlap), all of them together (one status per worktree, one ref and commit listing per
 * repository). Git's answer is kept only for a tree that proved idle; the others are judged on
 * their age alone, as before.
 */
async function examineSetWorktrees(
  items: ReadonlyArray<{ worktree: string; policy: IdlePolicy }>,
  walks: Pick<GatherContext, 'measure' | 'measureAhead' | 'whenMeasured'>,
): Promise<SetWorktreeEvidence[]> {
  const { measure } = walks;
  const linked = items.map((item) => readWorktreeLink(item.worktree));
  const trees = (result: LinkResult): string[] => (result.ok ? [result.link.path, result.link.adminDir] : []);
  walks.measureAhead?.(linked.flatMap(trees));
  const unlocked = linked.flatMap((result, at) =>
    result.ok && result.link.lockedReason === null ? [{ at, link: result.link }] : [],
  );
  const asking = readGitFacts(unlocked.map((ask) => ask.link));
  const examined: Array<SetWorktreeEvidence & { idle: boolean }> = [];
  for (const [k, { worktree, policy }] of items.entries()) {
    const result = linked[k] as LinkResult;
    if (!result.ok) {
      examined.push({
        evidence: { path: worktree, state: 'unlinked', problem: result.problem, detail: result.detail },
        newest: { ms: null },
        nested: { ok: false, error: result.detail },
        idle: false,
      });
      continue;
    }
    const { link } = result;
    await walks.whenMeasured?.(trees(result));
    const newest = newestWrite([link.path, link.adminDir], measure);
    const nested = scanNested(link.path, measure);
    const idle = newest.ms !== null && !newest.error && policy.nowMs - newest.ms > policy.idleAfterMs;
    examined.push({ evidence: { path: worktree, state: 'linked', link, git: null }, newest, nested, idle });
  }
  const facts = await asking;
  unlocked.forEach(({ at, link }, k) => {
    const entry = examined[at] as SetWorktreeEvidence & { idle: boolean };
    if (entry.idle) entry.evidence = withFacts(entry.evidence.path, link, facts[k] as GitFacts | Error);
  });
  return examined.map(({ evidence, newest, nested }) => ({ evidence, newest, nested }));
}

interface SetWorktree {
  root: SetRoot;
  worktree: string;
  policy: IdlePolicy;
}

function candidateFor(item: SetWorktree, examined: SetWorktreeEvidence): Candidate {
  const { root, worktree, policy } = item;
  const { evidence, newest, nested } = examined;
  const judged = judgeSetWorktree(evidence, newest, policy, nested);
  const note = evidence.state === 'linked' ? ownerNote(root.set, evidence.link) : null;
  // The detail says which set found the worktree, and what its tool's own record says of it.
  const judgement = { ...judged, detail: `${describeSet(root.set)}: ${judged.detail}${note ? `; ${note}` : ''}` };
  const candidate: Candidate = { provider: 'worktrees', kind: 'worktree', path: worktree, root: root.root, judgement };
  if (evidence.state !== 'linked') return candidate;
  candidate.alsoWatch = [evidence.link.adminDir];
  if (judgement.decision === 'delete') {
    candidate.removal = gitWorktreeRemoval({
      judged: evidence,
      rejudge: (fresh) => {
        const link = fresh.state === 'linked' ? fresh.link : null;
        // A fresh walk: the one the plan was made on may be minutes old.
        const measure = createTreeCache();
        return judgeSetWorktree(
          fresh,
          link ? newestWrite([link.path, link.adminDir], measure) : { ms: null },
          { ...policy, nowMs: Date.now() },
          link ? scanNested(link.path, measure) : { ok: false, error: fresh.path },
        );
      },
    });
  }
  return candidate;
}
