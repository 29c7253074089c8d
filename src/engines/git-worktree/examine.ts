import type { Stats } from '../../safety/fs/stat.js';
import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import type { Owner } from '../../safety/owners/owner.js';
import { readGitFacts, withFacts, type GitFacts, type WorktreeEvidence } from './evidence.js';
import { newestWrite, type NewestWrite } from './idle.js';
import { readWorktreeLink, type LinkResult, type WorktreeLink } from './link.js';
import type { JudgedLock, LockRule } from './stale-lock.js';
import { scanNested, type NestedScan } from './nested.js';
import type { IdlePolicy } from './judge.js';

export interface SetWorktreeEvidence {
  evidence: WorktreeEvidence;
  newest: NewestWrite;
  /** The `.git` entries below the worktree's top, from the same walk as its newest write. */
  nested: NestedScan;
  /** Its git lock as its set's tool judged it, where it is locked and the set has a rule for locks. */
  lock?: JudgedLock | null;
}

/**
 * Reads what the judgements need: the links, then git about every unlocked tree that may be idle
 * while the trees are walked for their newest writes (git runs in its own processes, the walk
 * here, so on two cores they overlap), all of them together (one status per worktree, one ref and
 * commit listing per repository). Git's answer is kept only for a tree that proved idle; the others
 * are judged on their age alone. A tree whose top entries alone show a write within idleAfter is
 * not idle whatever the walk finds, so git is not asked about it; should the walk still find it
 * idle (an entry set back in between), git is asked then.
 */
export async function examineSetWorktrees(
  items: ReadonlyArray<{ worktree: string; policy: IdlePolicy; owner?: Owner; lockRule?: LockRule }>,
  walks: Pick<GatherContext, 'measure' | 'measureAhead' | 'whenMeasured'>,
): Promise<SetWorktreeEvidence[]> {
  const { measure } = walks;
  const linked = items.map((item) => readWorktreeLink(item.worktree));
  // git over each worktree runs as the owner of the home it was found in (rule 20).
  const owners = new Map<string, Owner>();
  linked.forEach((result, k) => {
    const owner = items[k]?.owner;
    if (result.ok && owner) owners.set(result.link.path, owner);
  });
  const homeOwnerOf = (worktree: string) => owners.get(worktree);
  const trees = (result: LinkResult): string[] => (result.ok ? [result.link.path, result.link.adminDir] : []);
  walks.measureAhead?.(linked.flatMap(trees));
  // A lock its tool calls stale is judged with everything else in place: git is asked as for an unlocked tree.
  const locks = await Promise.all(
    linked.map((result, at) => {
      const rule = items[at]?.lockRule;
      return result.ok && result.link.lockedReason !== null && rule ? rule(result.link) : null;
    }),
  );
  const unlocked = linked.flatMap((result, at) =>
    result.ok && (result.link.lockedReason === null || locks[at]?.answer?.state === 'stale')
      ? [{ at, link: result.link }]
      : [],
  );
  const [asked, skipped] = partition(unlocked, ({ at, link }) => !writtenWithin(link, items[at]?.policy as IdlePolicy));
  const asking = readGitFacts(
    asked.map((ask) => ask.link),
    undefined,
    homeOwnerOf,
  );
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
  const late = skipped.filter(({ at }) => examined[at]?.idle);
  const answered = [...asked, ...late];
  const lateFacts =
    late.length > 0
      ? await readGitFacts(
          late.map((ask) => ask.link),
          undefined,
          homeOwnerOf,
        )
      : [];
  const facts = [...(await asking), ...lateFacts];
  answered.forEach(({ at, link }, k) => {
    const entry = examined[at] as SetWorktreeEvidence & { idle: boolean };
    if (entry.idle) entry.evidence = withFacts(entry.evidence.path, link, facts[k] as GitFacts | Error);
  });
  return examined.map(({ evidence, newest, nested }, at) => ({ evidence, newest, nested, lock: locks[at] ?? null }));
}

/**
 * Whether the worktree's folder, its admin folder, or the index or HEAD in it was written within
 * idleAfter (or later than now): each is one of the entries whose newest write decides idleness,
 * so the tree cannot be idle.
 */
function writtenWithin(link: WorktreeLink, policy: IdlePolicy): boolean {
  for (const entry of [link.path, link.adminDir, path.join(link.adminDir, 'index'), path.join(link.adminDir, 'HEAD')]) {
    let stats: Stats | null;
    try {
      stats = lstatOrNullSync(entry);
    } catch {
      // Not proven either way: git is asked, as for any tree.
      continue;
    }
    if (stats && policy.nowMs - stats.mtimeMs <= policy.idleAfterMs) return true;
  }
  return false;
}

function partition<T>(all: readonly T[], keep: (item: T) => boolean): [T[], T[]] {
  const kept: T[] = [];
  const rest: T[] = [];
  for (const item of all) (keep(item) ? kept : rest).push(item);
  return [kept, rest];
}
