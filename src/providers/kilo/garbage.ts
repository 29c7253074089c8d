import path from 'node:path';
import type { Owner } from '../../safety/owners/owner.js';
import { garbageOf, type RepositoryGarbage } from '../../engines/git-garbage/candidates.js';
import { readRecordedWorktree } from './config-file.js';
import type { RepoEvidence } from './evidence.js';
import { garbageRefusal } from './judge.js';
import { appName, sha1hex, snapshotRoot, usesSnapshotLock, type KiloLocation } from './layout.js';
import type { LockState } from './lock.js';
import { lockOf, type LockSurvey, type SnapshotLocks } from './lock-places.js';
import { garbageGuard } from './removal.js';

/**
 * git's temporary files in a checkpoint repository that is its app's (its `core.worktree` hashes
 * to its folder name), alive or not, unless the repository itself is to be deleted (they go with
 * it). Kilo Code's go only under Kilo Code's snapshot lock of that repository, as the pass takes
 * it right before each file goes; opencode has no such lock.
 */
export async function repositoryGarbage(
  evidence: RepoEvidence,
  location: KiloLocation,
  homeOwner: Owner,
  locks: KiloLockContext,
): Promise<RepositoryGarbage | null> {
  const { worktree, repo } = evidence;
  if (worktree === null || sha1hex(worktree) !== repo.name) return null;
  return garbageOf({
    provider: 'kilo',
    gitdir: repo.gitdir,
    area: repo.gitdir,
    root: snapshotRoot(location.dataDir),
    whose: `${appName(evidence.app)}'s checkpoint repository`,
    homeOwner,
    ...refusalOrGuard(garbageRefusal(evidence), repo.gitdir, evidence.app, locks),
  });
}

/** Kilo Code's lock folder of a data folder as the pass found it (all null for opencode, or an unknown state folder). */
export interface KiloLockContext {
  locks: SnapshotLocks | null;
  survey: LockSurvey | null;
  known: readonly string[];
}

/**
 * The same for an old per-project repository (`snapshot/<project>/` itself, a git dir made for the
 * project's worktree: its config records one), which is never deleted as a whole.
 */
export async function legacyGarbage(
  gitdir: string,
  location: KiloLocation,
  homeOwner: Owner,
  sourceProblem: string | undefined,
  locks: KiloLockContext,
): Promise<RepositoryGarbage | null> {
  const recorded = await readRecordedWorktree(path.join(gitdir, 'config')).catch(() => null);
  if (recorded?.state !== 'recorded') return null;
  const locking = usesSnapshotLock(location.app);
  let lock: LockState | { state: 'unknown' } = locking ? { state: 'unknown' } : { state: 'free' };
  let lockDir: string | null = null;
  let readProblem: string | undefined;
  let unattributed = false;
  if (locking && locks.locks && locks.survey) {
    const seen = lockOf(locks.survey, locks.locks, gitdir);
    ({ lock, lockDir } = seen);
    readProblem = seen.problem;
    unattributed = seen.unattributed === true;
  }
  const refusal = garbageRefusal({
    app: location.app,
    lock,
    lockDir,
    ...(unattributed ? { lockUnattributed: true as const } : {}),
    ...(sourceProblem ? { sourceProblem } : {}),
    ...(readProblem ? { readProblem } : {}),
  });
  return garbageOf({
    provider: 'kilo',
    gitdir,
    area: gitdir,
    root: snapshotRoot(location.dataDir),
    whose: `${appName(location.app)}'s old per-project checkpoint repository`,
    homeOwner,
    ...refusalOrGuard(refusal, gitdir, location.app, locks),
  });
}

function refusalOrGuard(
  refusal: ReturnType<typeof garbageRefusal>,
  gitdir: string,
  app: KiloLocation['app'],
  { locks, known }: KiloLockContext,
): Pick<Parameters<typeof garbageOf>[0], 'refusal' | 'guard'> {
  if (refusal) return { refusal };
  return usesSnapshotLock(app) && locks ? { guard: garbageGuard({ locks, gitdir, known }) } : {};
}
