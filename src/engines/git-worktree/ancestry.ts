import { git } from '../../git/git.js';
import { KEEPING_REFS, type KeepingRef, readKeepingRefFiles } from './ref-files.js';
import type { HeadState } from './status.js';

/** What keeps a worktree's HEAD commit, answered for all worktrees of one repository at once. */
export interface Ancestry {
  /** Branches, remote-tracking branches and tags containing the HEAD commit (its own branch included). */
  containingRefs: string[];
  /** Commits reachable from HEAD that no other branch, remote-tracking branch or tag holds. */
  commitsOnlyHere: number | null;
  /** The worktree's own refs (refs/worktree/*, refs/bisect/*, refs/rewritten/*) and what holds each one's commit. */
  worktreeRefs: HeldRef[];
}

/** A per-worktree ref and the branches, remote-tracking branches and tags that contain its commit. */
export interface HeldRef {
  name: string;
  commit: string;
  containingRefs: string[];
}

export interface WorktreeHead extends HeadState {
  path: string;
  /** Its per-worktree refs, which go with it: each one's commit must be held elsewhere too. */
  worktreeRefs?: readonly KeepingRef[];
}

/**
 * At most one git process per repository, however many of its worktrees are asked about: a
 * `rev-list` of the commits that only the worktrees' own branches hold, with their parents, not
 * run when every HEAD is another ref's tip. Whether another ref holds a HEAD, and how many commits
 * would be at stake, is then worked out from the refs and that graph. A HEAD that is no ref's tip
 * and is held from outside the graph costs one `for-each-ref --contains`, to name what holds it.
 * `cwd` is any worktree of the repository (refs are shared by all of them); `refs` its listing.
 */
export async function readAncestry(
  cwd: string,
  heads: readonly WorktreeHead[],
  refs: readonly KeepingRef[],
): Promise<Array<Ancestry | Error>> {
  const tipOf = new Map(refs.map((ref) => [ref.name, ref.commit]));
  const consistent = heads.map(
    (head) => head.commit === null || head.branch === null || tipOf.get(head.branch) === head.commit,
  );
  const ownBranches = new Set(
    heads
      .filter((head, k) => consistent[k] && head.commit !== null && head.branch !== null)
      .map((head) => head.branch as string),
  );
  const outside = refs.filter((ref) => ref.commit !== null && !ownBranches.has(ref.name));
  const ownRefsOf = (head: WorktreeHead) =>
    (head.worktreeRefs ?? []).filter((ref): ref is KeepingRef & { commit: string } => ref.commit !== null);
  const positives = heads
    .filter((head, k) => consistent[k] && head.commit !== null)
    .map((head) => head.commit as string);
  for (const [k, head] of heads.entries())
    if (consistent[k]) for (const ref of ownRefsOf(head)) positives.push(ref.commit);
  // A HEAD that is another ref's tip is held, and then what it alone holds is not asked: where every
  // HEAD is, the walk of the graph has nothing to answer (a fleet of fresh or pushed branches).
  const tips = new Map<string, string[]>();
  for (const [name, commit] of tipOf) if (commit !== null) tips.set(commit, (tips.get(commit) ?? []).concat(name));
  const heldByTip = (head: WorktreeHead) =>
    (tips.get(head.commit as string) ?? []).some((name) => name !== head.branch);
  const needsGraph = heads.some(
    (head, k) =>
      consistent[k] &&
      ((head.commit !== null && !heldByTip(head)) || ownRefsOf(head).some((ref) => !tips.has(ref.commit))),
  );
  const graph = !needsGraph
    ? new Map<string, string[]>()
    : await commitsOnlyInBranches(
        cwd,
        positives,
        outside.map((ref) => ref.commit as string),
      );
  const reach = reachWithin(graph);
  const branchesHolding = new Map<string, number>();
  for (const branch of ownBranches)
    for (const held of reach(tipOf.get(branch) as string))
      branchesHolding.set(held, (branchesHolding.get(held) ?? 0) + 1);

  /**
   * Every keeping ref that holds a commit a per-worktree ref names: the refs whose tip it is, the
   * worktrees' branches that reach it in the graph, or, where it is outside the graph (reachable
   * from some other ref, or no commit at all), git's own answer.
   */
  const holdersOf = async (commit: string): Promise<string[]> => {
    const atTip = tips.get(commit) ?? [];
    if (!graph.has(commit)) {
      if (atTip.some((name) => !ownBranches.has(name))) return [...atTip];
      return refsContaining(cwd, commit);
    }
    const holders = new Set<string>(atTip);
    for (const branch of ownBranches) if (reach(tipOf.get(branch) as string).has(commit)) holders.add(branch);
    return [...holders];
  };

  return Promise.all(
    heads.map(async (head, k): Promise<Ancestry | Error> => {
      if (!consistent[k])
        return new Error(
          `HEAD of ${head.path} moved while it was read (${head.branch} is no longer at ${head.commit})`,
        );
      const worktreeRefs = await Promise.all(
        ownRefsOf(head).map(
          async (ref): Promise<HeldRef> => ({
            name: ref.name,
            commit: ref.commit,
            containingRefs: await holdersOf(ref.commit),
          }),
        ),
      );
      if (head.commit === null) return { containingRefs: [], commitsOnlyHere: null, worktreeRefs };
      const commit = head.commit;
      const holders = new Set<string>(head.branch ? [head.branch] : []);
      for (const ref of outside) if (ref.commit === commit) holders.add(ref.name);
      for (const branch of ownBranches) {
        if (branch === head.branch) continue;
        const tip = tipOf.get(branch) as string;
        if (tip === commit || reach(tip).has(commit)) holders.add(branch);
      }
      const others = [...holders].filter((name) => name !== head.branch);
      if (others.length > 0) return { containingRefs: [...holders], commitsOnlyHere: null, worktreeRefs };
      // Held from outside the graph, by a ref whose tip is further on: ask git which.
      if (!graph.has(commit))
        return { containingRefs: await refsContaining(cwd, commit), commitsOnlyHere: null, worktreeRefs };
      // Its own branch is one of the holders counted for every commit it reaches.
      const own = head.branch !== null && ownBranches.has(head.branch) ? 1 : 0;
      let onlyHere = 0;
      for (const held of reach(commit)) if ((branchesHolding.get(held) ?? 0) - own === 0) onlyHere += 1;
      return { containingRefs: [...holders], commitsOnlyHere: onlyHere, worktreeRefs };
    }),
  );
}

/**
 * The keeping refs and the commit each keeps, from the repository's files where they are plain (see
 * ref-files.ts), else from git. Read before or after the statuses alike: a HEAD that moved in
 * between shows as a branch tip that is not the HEAD read.
 */
export async function listKeepingRefs(cwd: string, commonDir: string): Promise<KeepingRef[]> {
  return readKeepingRefFiles(commonDir) ?? listKeepingRefsFromGit(cwd);
}

/** `git for-each-ref` of the keeping refs, a tag peeled once. */
export async function listKeepingRefsFromGit(cwd: string): Promise<KeepingRef[]> {
  const out = await git(
    ['for-each-ref', '--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname)', ...KEEPING_REFS],
    { cwd },
  );
  const refs: KeepingRef[] = [];
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const [type, id, peeledType, peeledId, name] = line.split(' ');
    if (!name) throw new Error(`git for-each-ref printed a line this version does not know: ${JSON.stringify(line)}`);
    const commit = type === 'commit' ? id : peeledType === 'commit' ? peeledId : null;
    refs.push({ name, commit: commit ?? null });
  }
  return refs;
}

/** Every commit reachable from `from` and from none of `outside`, with its parents. */
async function commitsOnlyInBranches(
  cwd: string,
  from: readonly string[],
  outside: readonly string[],
): Promise<Map<string, string[]>> {
  const input = `${[...from, ...outside.map((commit) => `^${commit}`)].join('\n')}\n`;
  const out = await git(['rev-list', '--parents', '--stdin'], { cwd, input });
  const graph = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const [commit, ...parents] = line.split(' ');
    graph.set(commit as string, parents);
  }
  return graph;
}

/** The commits of the graph reachable from a commit (itself included), remembered per start. */
function reachWithin(graph: ReadonlyMap<string, readonly string[]>): (start: string) => ReadonlySet<string> {
  const memo = new Map<string, Set<string>>();
  return (start) => {
    const known = memo.get(start);
    if (known) return known;
    const seen = new Set<string>();
    const stack = graph.has(start) ? [start] : [];
    while (stack.length > 0) {
      const commit = stack.pop() as string;
      if (seen.has(commit)) continue;
      seen.add(commit);
      for (const parent of graph.get(commit) ?? []) if (graph.has(parent) && !seen.has(parent)) stack.push(parent);
    }
    memo.set(start, seen);
    return seen;
  };
}

/** The branches, remote-tracking branches and tags that contain `commit` (`git for-each-ref --contains`). */
export async function refsContaining(cwd: string, commit: string): Promise<string[]> {
  const out = await git(['for-each-ref', '--contains', commit, '--format=%(refname)', ...KEEPING_REFS], { cwd });
  return out.split('\n').filter((line) => line !== '');
}
