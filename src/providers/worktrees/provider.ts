import { errorMessage } from '../../model/errors.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type {
  BuiltInSet,
  GatherContext,
  Gathering,
  LockContext,
  Provider,
  WorktreeKeeper,
} from '../../provider-api/provider.js';
import type { ProcessTable } from '../../safety/processes/processes.js';
import { lockRuleOf, unlockOf, type LockRule } from '../../engines/git-worktree/stale-lock.js';
import type { OwnerJudgement, RootStatus } from '../../model/types.js';
import { createTreeCache } from '../../safety/walk/tree-cache.js';
import { newestWrite } from '../../engines/git-worktree/idle.js';
import { scanNested } from '../../engines/git-worktree/nested.js';
import { gitWorktreeRemoval } from '../../engines/git-worktree/remove.js';
import { describeSet } from './describe.js';
import { examineSetWorktrees, type SetWorktreeEvidence } from '../../engines/git-worktree/examine.js';
import { judgeSetWorktree, type IdlePolicy } from '../../engines/git-worktree/judge.js';
import { setRoots, worktreesIn, type SetRoot } from './layout.js';
import { builtInSets } from './config.js';

/** Git worktrees that agent tools leave in the built-in and configured sets of roots. */
export const worktreesGather: Pick<Provider, 'gather' | 'claimedAreas'> = {
  async claimedAreas(ctx) {
    return (await setRoots(ctx)).roots.map((root) => ({ owner: `worktrees set ${root.set}`, folder: root.root }));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const found = await setRoots(ctx);
    const roots: RootStatus[] = [...found.problems];
    // A tool's data without the state that names its folders: one line on stderr, as a missing home.
    for (const root of found.problems) if (root.warning) ctx.log.warn({ root: root.root }, root.warning);
    // No two sets share a folder (the config check refuses it, a root read from a tool's state
    // gives way), so each worktree belongs to one set.
    const nowMs = ctx.now.getTime();
    const claimedNames = ctx.registry.flatMap((provider) => provider.claimedNames ?? []);
    const builtIns = new Map(builtInSets(ctx.registry).map((set) => [set.name, set]));
    const items: SetWorktree[] = [];
    for (const root of found.roots) {
      try {
        for (const worktree of await worktreesIn(root.root, claimedNames))
          items.push({
            root,
            worktree,
            policy: { set: root.set, idleAfterMs: root.idleAfterMs, nowMs },
            tool: builtIns.get(root.set)?.tool,
            describe: builtIns.get(root.set)?.describe,
            staleLock: builtIns.get(root.set)?.staleLock,
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
    const looks: LookAround = { homes: ctx.homes, env: ctx.env };
    const examined = await examineSetWorktrees(
      items.map((item) => ({ ...item, owner: item.root.owner, lockRule: lockRuleFor(item, looks, ctx.processes) })),
      ctx,
    );
    // A tool's live records are read once, and only for a set that has worktrees here.
    const keepers = new Map<string, WorktreeKeeper>();
    for (const name of new Set(items.map((item) => item.root.set))) {
      const keeps = builtIns.get(name)?.keeps;
      if (!keeps) continue;
      try {
        keepers.set(name, await keeps(ctx));
      } catch (err) {
        // What could keep them cannot be read: none of them is judged as if nothing did (rule 27).
        const detail = `what keeps the worktrees of set ${name} cannot be read: ${errorMessage(err)}`;
        keepers.set(name, () => ({ decision: 'refused', reason: 'source-unreadable', detail }));
      }
    }
    const candidates = items.map((item, k) =>
      candidateFor(item, examined[k] as SetWorktreeEvidence, keepers.get(item.root.set), ctx, looks),
    );
    return { roots, candidates };
  },
};

/** The set's own rule, unless its tool's records keep the worktree more cautiously (unfinished stays unfinished). */
function withKeeper(judged: OwnerJudgement, kept: OwnerJudgement | null | undefined): OwnerJudgement {
  if (!kept) return judged;
  const caution = { delete: 0, kept: 1, refused: 2, unfinished: 3 } as const;
  return caution[kept.decision] >= caution[judged.decision] ? kept : judged;
}

const builtInKeeps = (ctx: GatherContext, set: string) =>
  builtInSets(ctx.registry).find((each) => each.name === set)?.keeps;

interface SetWorktree {
  root: SetRoot;
  worktree: string;
  policy: IdlePolicy;
  /** The tool of a built-in set, for the detail. */
  tool: string | undefined;
  /** What that tool's own record says of the worktree, where its provider reads it. */
  describe: ((adminDir: string) => string | null) | undefined;
  /** That tool's rule for its own git locks (Claude Code's), where it has one. */
  staleLock: BuiltInSet['staleLock'];
}

/** What a lock rule reads besides the processes. */
type LookAround = Omit<LockContext, 'processes'>;

/** The set's rule for its tool's locks, bound to a look at the processes, or none. */
function lockRuleFor(item: SetWorktree, looks: LookAround, processes: ProcessTable): LockRule | undefined {
  return item.staleLock ? lockRuleOf(item.staleLock, item.root.owner.uid, { ...looks, processes }) : undefined;
}

function candidateFor(
  item: SetWorktree,
  examined: SetWorktreeEvidence,
  keeper: WorktreeKeeper | undefined,
  ctx: GatherContext,
  looks: LookAround,
): Candidate {
  const { root, worktree, policy } = item;
  const { evidence, newest, nested } = examined;
  const judged = withKeeper(
    judgeSetWorktree(evidence, newest, policy, nested, examined.lock?.answer ?? null),
    keeper?.(worktree, root.owner),
  );
  const note = evidence.state === 'linked' ? (item.describe?.(evidence.link.adminDir) ?? null) : null;
  // The detail says which set found the worktree, and what its tool's own record says of it.
  const judgement = {
    ...judged,
    detail: `${describeSet(root.set, item.tool)}: ${judged.detail}${note ? `; ${note}` : ''}`,
  };
  const candidate: Candidate = {
    provider: 'worktrees',
    kind: 'worktree',
    path: worktree,
    root: root.root,
    judgement,
    homeOwner: root.owner,
  };
  if (evidence.state !== 'linked') return candidate;
  candidate.alsoWatch = [evidence.link.adminDir];
  if (judgement.decision === 'delete') {
    const unlock = unlockOf(evidence.link, examined.lock);
    candidate.removal = gitWorktreeRemoval({
      judged: evidence,
      ...(unlock ? { unlock } : {}),
      rejudge: async (fresh, guard) => {
        const link = fresh.state === 'linked' ? fresh.link : null;
        // A fresh walk: the one the plan was made on may be minutes old; a lock, judged on a fresh look.
        const measure = createTreeCache();
        const rule = link && link.lockedReason !== null ? lockRuleFor(item, looks, guard.lookAtProcesses()) : undefined;
        const lock = link && rule ? await rule(link) : null;
        const again = judgeSetWorktree(
          fresh,
          link ? newestWrite([link.path, link.adminDir], measure) : { ms: null },
          { ...policy, nowMs: Date.now() },
          link ? scanNested(link.path, measure) : { ok: false, error: fresh.path },
          lock?.answer ?? null,
        );
        // The tool's records read again, with a fresh look at its processes (a session started since).
        const keeps = builtInKeeps(ctx, root.set);
        if (!keeps || again.decision !== 'delete') return again;
        const keeper = await keeps({ ...ctx, processes: guard.lookAtProcesses() });
        return withKeeper(again, keeper(worktree, root.owner));
      },
    });
  }
  return candidate;
}
