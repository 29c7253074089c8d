import { errorMessage } from '../../core/errors.js';
import type { Candidate, GatherContext, Gathering, Provider, RootStatus } from '../../core/types.js';
import { mapLimit } from '../../util/limit.js';
import { GIT_CONCURRENCY, readGitFacts, type WorktreeEvidence } from '../../worktree/evidence.js';
import { newestWrite, type NewestWrite } from '../../worktree/idle.js';
import { readWorktreeLink } from '../../worktree/link.js';
import { gitWorktreeRemoval } from '../../worktree/remove.js';
import { judgeSetWorktree, type IdlePolicy } from './judge.js';
import { setRoots, worktreesIn, type SetRoot } from './layout.js';

/** Git worktrees that agent tools leave in the configured sets of roots. */
export const worktreesProvider: Provider = {
  name: 'worktrees',
  async gather(ctx: GatherContext): Promise<Gathering> {
    const roots: RootStatus[] = [];
    const found: Array<{ root: SetRoot; worktree: string }> = [];
    const seen = new Set<string>();
    for (const root of await setRoots(ctx)) {
      try {
        for (const worktree of await worktreesIn(root.root)) {
          if (seen.has(worktree)) continue;
          seen.add(worktree);
          found.push({ root, worktree });
        }
        roots.push({ provider: 'worktrees', root: root.root, ok: true });
      } catch (err) {
        roots.push({ provider: 'worktrees', root: root.root, ok: false, error: `cannot list ${root.root}: ${errorMessage(err)}` });
      }
    }
    const nowMs = ctx.now.getTime();
    const candidates = await mapLimit(found, GIT_CONCURRENCY, ({ root, worktree }) => candidateFor(root, worktree, { set: root.set, idleAfterMs: root.idleAfterMs, nowMs }));
    return { roots, candidates };
  },
};

/** Reads what a judgement needs, cheapest first: git is only asked about a tree that is idle and unlocked. */
export async function examineSetWorktree(worktree: string, policy: IdlePolicy): Promise<{ evidence: WorktreeEvidence; newest: NewestWrite }> {
  const linked = await readWorktreeLink(worktree);
  if (!linked.ok) return { evidence: { path: worktree, state: 'unlinked', problem: linked.problem, detail: linked.detail }, newest: { ms: null } };
  const { link } = linked;
  const newest = newestWrite([link.path, link.adminDir]);
  const idle = newest.ms !== null && !newest.error && policy.nowMs - newest.ms > policy.idleAfterMs;
  if (link.lockedReason !== null || !idle) return { evidence: { path: worktree, state: 'linked', link, git: null }, newest };
  try {
    return { evidence: { path: worktree, state: 'linked', link, git: await readGitFacts(link) }, newest };
  } catch (err) {
    return { evidence: { path: worktree, state: 'linked', link, git: null, gitError: errorMessage(err) }, newest };
  }
}

async function candidateFor(root: SetRoot, worktree: string, policy: IdlePolicy): Promise<Candidate> {
  const { evidence, newest } = await examineSetWorktree(worktree, policy);
  const judgement = judgeSetWorktree(evidence, newest, policy);
  const candidate: Candidate = { provider: 'worktrees', kind: 'worktree', path: worktree, root: root.root, judgement };
  if (evidence.state !== 'linked') return candidate;
  candidate.alsoWatch = [evidence.link.adminDir];
  if (judgement.decision === 'delete') {
    candidate.removal = gitWorktreeRemoval({
      judged: evidence,
      rejudge: (fresh) => {
        const link = fresh.state === 'linked' ? fresh.link : null;
        return judgeSetWorktree(fresh, link ? newestWrite([link.path, link.adminDir]) : { ms: null }, { ...policy, nowMs: Date.now() });
      },
    });
  }
  return candidate;
}
