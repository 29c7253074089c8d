import path from 'node:path';
import type { Reason } from '../../core/reasons.js';
import type { OwnerJudgement } from '../../core/types.js';
import type { RepoEvidence } from './evidence.js';
import { sha1hex } from './layout.js';
import { spellingsOf } from './owner-repo.js';

/** A `seed.index` younger than this is a seeding in progress (Kilo's own lock waits this long). */
export const SEEDING_FRESH_MS = 5 * 60_000;

const refused = (reason: Reason, detail: string): OwnerJudgement => ({ decision: 'refused', reason, detail });

/**
 * The rule for one checkpoint repository, from its evidence alone (no I/O). A repository is
 * proven dead only when its worktree is gone and the owner repository, present and readable,
 * no longer lists it anywhere; a missing folder by itself proves nothing (a drive may be
 * unmounted).
 */
export function judgeRepo(evidence: RepoEvidence, nowMs: number): OwnerJudgement {
  const { repo, worktree } = evidence;
  if (evidence.sourceProblem) return refused('source-unreadable', evidence.sourceProblem);
  if (evidence.readProblem) return refused('evidence-unreadable', evidence.readProblem);
  if (worktree === null)
    return refused('worktree-unrecorded', evidence.worktreeProblem ?? `${repo.gitdir} records no worktree`);
  if (sha1hex(worktree) !== repo.name) {
    return refused(
      'worktree-hash-mismatch',
      `core.worktree ${worktree} hashes to ${sha1hex(worktree)}, not to the folder name ${repo.name}`,
    );
  }
  if (evidence.worktreeExists === 'yes')
    return { decision: 'kept', reason: 'worktree-present', detail: `its worktree ${worktree} exists` };
  if (evidence.worktreeExists === 'unknown') {
    return refused('worktree-unreadable', evidence.worktreeProblem ?? `whether ${worktree} exists cannot be known`);
  }

  const managed = evidence.managed;
  if (!managed) {
    return refused(
      'unmanaged-worktree',
      `its worktree ${worktree} is gone, but Kilo did not make it (not under .kilo/worktrees or Kilo's worktree folder), so its removal proves nothing`,
    );
  }
  if (evidence.ownerPath === null)
    return refused(
      'owner-unknown',
      `its worktree ${worktree} is gone, but ${evidence.ownerProblem ?? 'its owner repository is not known'}`,
    );
  const owner = evidence.owner;
  if (!owner || owner.state === 'missing' || owner.state === 'not-a-repo') {
    return refused(
      'owner-unavailable',
      `its worktree ${worktree} is gone, but ${owner?.problem ?? `${evidence.ownerPath} cannot be looked at`} (perhaps an unmounted volume)`,
    );
  }
  if (owner.state === 'unreadable') return refused('owner-unreadable', owner.problem ?? `${owner.path} cannot be read`);

  const spellings = spellingsOf(worktree, owner);
  if (spellings.some((spelling) => owner.gitWorktrees.has(spelling))) {
    return refused(
      'worktree-still-registered',
      `git worktree list in ${owner.path} still lists ${worktree}; Kilo did not remove it (a missing folder is no proof)`,
    );
  }
  if (owner.agentManager.problem) return refused('agent-manager-unreadable', owner.agentManager.problem);
  if (spellings.some((spelling) => owner.agentManager.worktrees.has(spelling))) {
    return refused('agent-manager-lists-worktree', `${owner.agentManager.files.join(' or ')} still lists ${worktree}`);
  }

  const lock = evidence.lock;
  if (lock.state === 'fresh') {
    const holder = lock.pid === undefined ? '' : ` by pid ${lock.pid} on ${lock.hostname ?? 'an unknown host'}`;
    return refused(
      'kilo-lock-held',
      `Kilo's lock ${evidence.lockDir} is held${holder} (heartbeat ${Math.round(lock.ageMs / 1000)}s old)`,
    );
  }
  if (lock.state === 'unknown')
    return refused(
      'lock-location-unknown',
      "Kilo's lock folder is not known, so Kilo cannot be kept out during a delete",
    );
  if (evidence.seedingMs !== null && nowMs - evidence.seedingMs < SEEDING_FRESH_MS) {
    return refused(
      'being-seeded',
      `${path.join(repo.gitdir, 'seed.index')} was written ${Math.round((nowMs - evidence.seedingMs) / 1000)}s ago: Kilo is seeding it`,
    );
  }

  const pinned = evidence.pin ? `; its pin ${evidence.pin.ref} in ${owner.path} is dropped with it` : '';
  const seeded = evidence.unmaterialized ? " It was never materialized (it still borrows the owner's objects)." : '';
  return {
    decision: 'delete',
    reason: 'worktree-removed',
    detail: `its worktree ${worktree} is gone and ${owner.path} no longer lists it in git worktree list${owner.agentManager.files.length > 0 ? ' or agent-manager.json' : ''}${pinned}.${seeded}`,
  };
}

export function legacyJudgement(projectDir: string, nestedRepos: number): OwnerJudgement {
  const nested =
    nestedRepos > 0
      ? ` (its size includes the ${nestedRepos} per-worktree repositories inside it, reported on their own)`
      : '';
  return {
    decision: 'kept',
    reason: 'legacy-project-repo',
    detail: `${projectDir} is an old per-project checkpoint repository shared by every worktree of the project; it is reported, never deleted${nested}`,
  };
}
