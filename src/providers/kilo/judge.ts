import path from 'node:path';
import type { Reason } from '../../model/types.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { GarbageRefusal } from '../../engines/git-garbage/reasons.js';
import type { RepoEvidence } from './evidence.js';
import { appName, sha1hex, type KiloApp } from './layout.js';
import { spellingsOf } from './spellings.js';

/** A `seed.index` younger than this is a seeding in progress (Kilo's own lock waits this long). */
export const SEEDING_FRESH_MS = 5 * 60_000;

const refused = (reason: Reason, detail: string): OwnerJudgement => ({ decision: 'refused', reason, detail });

/**
 * The rule for one checkpoint repository, from its evidence alone (no I/O). A repository is
 * proven dead only when its worktree is gone and the owner repository, present and readable,
 * no longer lists it anywhere; a missing folder by itself proves nothing (a drive may be
 * unmounted). Every sentence names the app whose data folder holds it: Kilo Code and opencode
 * keep the same layout but not the same habits (only Kilo Code locks, seeds and pins).
 */
export function judgeRepo(evidence: RepoEvidence, nowMs: number): OwnerJudgement {
  const judged = judgeRepoFacts(evidence, nowMs);
  return { ...judged, detail: `${appName(evidence.app)} checkpoint repository: ${judged.detail}` };
}

function judgeRepoFacts(evidence: RepoEvidence, nowMs: number): OwnerJudgement {
  const { repo, worktree, app } = evidence;
  if (evidence.sourceProblem) return refused('source-unreadable', evidence.sourceProblem);
  if (evidence.readProblem) return refused('evidence-unreadable', evidence.readProblem);
  if (evidence.unreadableContent) return refused('unreadable-content', evidence.unreadableContent);
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
      `its worktree ${worktree} is gone, but no tool made it in a managed place (${managedPlaces(app)}), so its removal proves nothing`,
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
  if (owner.state === 'unreadable')
    return refused(
      owner.unreadableContent ? 'unreadable-content' : 'owner-unreadable',
      owner.problem ?? `${owner.path} cannot be read`,
    );

  const spellings = spellingsOf(worktree, owner);
  if (spellings.some((spelling) => owner.gitWorktrees.has(spelling))) {
    return refused(
      'worktree-still-registered',
      `git worktree list in ${owner.path} still lists ${worktree}: it was never removed through git (a missing folder is no proof)`,
    );
  }
  if (owner.agentManager.problem) return refused('agent-manager-unreadable', owner.agentManager.problem);
  if (spellings.some((spelling) => owner.agentManager.worktrees.has(spelling))) {
    return refused('agent-manager-lists-worktree', `${owner.agentManager.files.join(' or ')} still lists ${worktree}`);
  }

  const lock = evidence.lock;
  if (lock.state === 'fresh') return refused('kilo-lock-held', lockHeld(evidence, lock));
  if (lock.state === 'unknown')
    return refused(
      'lock-location-unknown',
      `${possessive(app)} state folder is not known, so the snapshot lock${app === 'opencode' ? '' : ' that keeps Kilo Code out'} cannot be taken for the delete`,
    );
  if (evidence.seedingMs !== null && nowMs - evidence.seedingMs < SEEDING_FRESH_MS) {
    const seeder =
      app === 'opencode' ? 'a seeding is under way (opencode itself never seeds)' : 'Kilo Code is seeding it';
    return refused(
      'being-seeded',
      `${path.join(repo.gitdir, 'seed.index')} was written ${Math.round((nowMs - evidence.seedingMs) / 1000)}s ago: ${seeder}`,
    );
  }

  const pinned = evidence.pin ? `; its pin ${evidence.pin.ref} in ${owner.path} is dropped with it` : '';
  const seeded = !evidence.unmaterialized ? '' : borrowedObjects(app);
  return {
    decision: 'delete',
    reason: 'worktree-removed',
    detail: `its worktree ${worktree} is gone and ${owner.path} no longer lists it in git worktree list${owner.agentManager.files.length > 0 ? ' or agent-manager.json' : ''}${pinned}.${seeded}`,
  };
}

/** Where each app makes the worktrees whose disappearance proves something. */
function managedPlaces(app: KiloApp | null): string {
  const data = `${possessive(app)} worktree folder <data>/worktree/<project>`;
  // opencode makes none in .kilo/worktrees; one there (Kilo Code's) still counts as managed.
  return app === 'opencode' ? data : `${data}, or a repository's .kilo/worktrees`;
}

/**
 * A held lock, as a refusal names it: this repository's own (under whichever spelling of its path
 * Kilo Code hashed), or one no known repository's spelling names, which may be this one's (rule 25).
 */
export function lockHeld(
  evidence: Pick<RepoEvidence, 'app' | 'lockDir' | 'lockUnattributed'>,
  lock: { ageMs: number; pid?: number; hostname?: string },
): string {
  const holder = lock.pid === undefined ? '' : ` by pid ${lock.pid} on ${lock.hostname ?? 'an unknown host'}`;
  const held = `in ${possessive(evidence.app)} state folder is held${holder} (heartbeat ${Math.round(lock.ageMs / 1000)}s old)`;
  if (!evidence.lockUnattributed) return `the snapshot lock ${evidence.lockDir} ${held}`;
  return `the lock ${evidence.lockDir} ${held}, and no spelling of any repository's path the pass knows of names it: it may be this repository's, under a spelling of its path the pass cannot see`;
}

const possessive = (app: KiloApp | null): string => (app === null ? "Kilo Code's or opencode's" : `${appName(app)}'s`);

/**
 * Both apps borrow the owner's objects through objects/info/alternates, for different reasons:
 * Kilo Code seeds a new repository and copies the objects in later (a Kilo Code process opened on
 * the worktree does); opencode keeps the alternates for good. Only the first is unfinished business.
 */
function borrowedObjects(app: KiloApp | null): string {
  if (app === 'opencode')
    return " Its objects/info/alternates, which opencode keeps for good, only names the owner's objects: those stay.";
  return " It was never materialized (Kilo Code's seeding left it borrowing the owner's objects, which stay).";
}

export function legacyJudgement(projectDir: string, nestedRepos: number, app: KiloApp | null): OwnerJudgement {
  const nested =
    nestedRepos > 0
      ? ` (its size includes the ${nestedRepos} per-worktree repositories inside it, reported on their own)`
      : '';
  return {
    decision: 'kept',
    reason: 'legacy-project-repo',
    detail: `${appName(app)} checkpoint repository: ${projectDir} is an old per-project checkpoint repository shared by every worktree of the project; it is reported, never deleted${nested}`,
  };
}

/**
 * Why git's temporary files in one of the app's repositories may not go now, or undefined: the
 * provider's sources could not be read (rule 1), or Kilo Code's snapshot lock of the repository
 * is held by a live process, or where that lock is cannot be known. No I/O.
 */
export function garbageRefusal(
  evidence: Pick<RepoEvidence, 'app' | 'lock' | 'lockDir' | 'lockUnattributed' | 'sourceProblem' | 'readProblem'>,
): GarbageRefusal | undefined {
  const refuse = (reason: Reason, detail: string) => ({ decision: 'refused' as const, reason, detail });
  const { app, lock } = evidence;
  if (evidence.sourceProblem) return refuse('source-unreadable', evidence.sourceProblem);
  if (evidence.readProblem) return refuse('evidence-unreadable', evidence.readProblem);
  if (lock.state === 'fresh')
    return refuse(
      'kilo-lock-held',
      `${lockHeld(evidence, lock)}${evidence.lockUnattributed ? '' : ': the repository is being written'}`,
    );
  if (lock.state === 'unknown')
    return refuse(
      'lock-location-unknown',
      `${possessive(app)} state folder is not known, so the snapshot lock that keeps Kilo Code out cannot be taken while git's temporary files go`,
    );
  return undefined;
}
