import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readRecordedWorktree } from './config-file.js';
import type { KiloRecords } from './database.js';
import {
  lockDirectory,
  managedPlace,
  materializePin,
  sha1hex,
  usesSnapshotLock,
  type KiloApp,
  type KiloLocation,
  type ManagedPlace,
} from './layout.js';
import { inspectLock, type LockState } from './lock.js';
import { lockDirsOf, lockOf, type LockSurvey, type SnapshotLocks } from './lock-places.js';
import type { OwnerRepoFacts } from './owner-repo.js';
import type { SnapshotRepo } from './snapshots.js';

/** Everything the rule looks at for one checkpoint repository. */
export interface RepoEvidence {
  repo: SnapshotRepo;
  /** Whose data folder holds it: the app every sentence about it names. */
  app: KiloApp | null;
  /** The git dir's identity when read, to notice a swap before the delete. */
  identity: { dev: number; ino: number } | null;
  /** `core.worktree` as recorded in the repository's config file, made absolute. */
  worktree: string | null;
  /** Why the worktree is not known, when it is not. */
  worktreeProblem?: string;
  /** git said it could not read part of the repository's config: rule 22. */
  unreadableContent?: string;
  /** Does W exist? `unknown` when lstat itself failed (a permission, say). */
  worktreeExists: 'yes' | 'no' | 'unknown';
  managed: ManagedPlace | null;
  /** R, when the worktree's place names it (or the project's row does). */
  ownerPath: string | null;
  /** Why R is not known for a managed worktree, when it is not. */
  ownerProblem?: string;
  owner: OwnerRepoFacts | null;
  /** `unknown` where Kilo's lock folder cannot be known (the state folder is not configured). */
  lock: LockState | { state: 'unknown' };
  /** The lock folder the pass takes first (as it spells the repository), or the one found held. */
  lockDir: string | null;
  /** The lock found held is no spelling of this repository's, and may be its lock all the same (rule 25). */
  lockUnattributed?: true;
  /** Newest mtime of `seed.index` / `seed.index.lock`: Kilo is seeding the repository. */
  seedingMs: number | null;
  /** Seeding leftovers: the repository still borrows R's objects (never materialized). */
  unmaterialized: boolean;
  /** The pin in R, when R has one for this repository. */
  pin: { ref: string; oid: string } | null;
  /** The provider's source of truth could not be read: everything is refused. */
  sourceProblem?: string;
  /** Part of the evidence could not be read (a permission, a vanished folder). */
  readProblem?: string;
}

/** Where R's facts come from: read once per pass while gathering, looked at again under a lock. */
export interface OwnerSource {
  get(repo: string): Promise<OwnerRepoFacts>;
}

export interface EvidenceContext {
  location: KiloLocation;
  /** The databases' rows, or null where there are none (or they could not be read). */
  records: KiloRecords | null;
  owners: OwnerSource;
  nowMs: number;
  sourceProblem?: string;
  /** Under our own hold of Kilo's lock, the lock says nothing about Kilo. */
  lockHeldByUs?: boolean;
  /** R as found at gather time: the database is not read twice. */
  knownOwner?: string | null;
  /** Kilo Code's lock folder and the spellings of the snapshot folder it may have hashed (null for opencode). */
  locks?: SnapshotLocks | null;
  /** What the lock folder held when the pass gathered. */
  survey?: LockSurvey | null;
  /** Every repository of the data folder the pass knows of: a held lock that none of them names may be any one's. */
  known?: readonly string[];
}

export async function collectEvidence(repo: SnapshotRepo, ctx: EvidenceContext): Promise<RepoEvidence> {
  return attachOwner(await collectLocalEvidence(repo, ctx), ctx.owners);
}

/**
 * Everything but R's facts: the repository's own files, its lock and where R is. A pass collects
 * this for every repository before it asks for any R, so that the owners, each read by three git
 * processes, are read side by side rather than one after another behind the repositories they own.
 */
export async function collectLocalEvidence(
  repo: SnapshotRepo,
  ctx: Omit<EvidenceContext, 'owners'>,
): Promise<RepoEvidence> {
  const stats = await lstatOrNull(repo.gitdir).catch(() => null);
  // opencode has no snapshot lock: taking one in its state folder would keep out no one.
  const locking = usesSnapshotLock(ctx.location.app);
  const lockDir = !locking
    ? null
    : ctx.locks
      ? (lockDirsOf(ctx.locks, repo.gitdir)[0] as string)
      : ctx.location.stateDir
        ? lockDirectory(ctx.location.stateDir, repo.gitdir)
        : null;
  const evidence: RepoEvidence = {
    repo,
    app: ctx.location.app,
    identity: stats ? { dev: stats.dev, ino: stats.ino } : null,
    worktree: null,
    worktreeExists: 'unknown',
    managed: null,
    ownerPath: null,
    owner: null,
    lock: locking ? { state: 'unknown' } : { state: 'free' },
    lockDir,
    seedingMs: null,
    unmaterialized: false,
    pin: null,
  };
  if (ctx.sourceProblem) evidence.sourceProblem = ctx.sourceProblem;
  if (ctx.location.problem) evidence.sourceProblem = ctx.location.problem;

  try {
    await gatherLocalFacts(evidence, ctx);
  } catch (err) {
    evidence.readProblem = `the evidence for ${repo.gitdir} cannot be read: ${errorMessage(err)}`;
  }
  return evidence;
}

/** R's facts and the pin R holds for the repository, where the local evidence named an R. */
export async function attachOwner(evidence: RepoEvidence, owners: OwnerSource): Promise<RepoEvidence> {
  if (evidence.ownerPath === null) return evidence;
  try {
    evidence.owner = await owners.get(evidence.ownerPath);
  } catch (err) {
    evidence.readProblem = `the evidence for ${evidence.repo.gitdir} cannot be read: ${errorMessage(err)}`;
    return evidence;
  }
  const pin = materializePin(evidence.repo.gitdir);
  const oid = evidence.owner.pins.get(pin);
  if (oid) evidence.pin = { ref: pin, oid };
  return evidence;
}

async function gatherLocalFacts(evidence: RepoEvidence, ctx: Omit<EvidenceContext, 'owners'>): Promise<void> {
  const { repo, lockDir } = evidence;
  await readWorktree(evidence);
  if (lockDir) await readLock(evidence, ctx);
  evidence.seedingMs = await newestMtime([
    path.join(repo.gitdir, 'seed.index'),
    path.join(repo.gitdir, 'seed.index.lock'),
  ]);
  evidence.unmaterialized =
    (await newestMtime([
      path.join(repo.gitdir, 'objects', 'info', 'alternates'),
      path.join(repo.gitdir, 'seed-objects'),
    ])) !== null;

  if (evidence.worktree === null || evidence.worktreeExists !== 'no') return;
  evidence.managed = managedPlace(evidence.worktree, ctx.location.dataDir);
  if (!evidence.managed) return;
  const owner = ctx.knownOwner !== undefined ? { path: ctx.knownOwner } : ownerOf(evidence.managed, ctx.records);
  evidence.ownerPath = owner.path;
  if ('problem' in owner && owner.problem) evidence.ownerProblem = owner.problem;
}

/** The repository's lock under every spelling, and any held lock that may be its (rule 25); free under our own hold. */
async function readLock(evidence: RepoEvidence, ctx: Omit<EvidenceContext, 'owners'>): Promise<void> {
  if (ctx.lockHeldByUs) {
    evidence.lock = { state: 'free' };
    return;
  }
  if (!ctx.locks || !ctx.survey) {
    evidence.lock = await inspectLock(evidence.lockDir as string, ctx.nowMs);
    return;
  }
  const seen = lockOf(ctx.survey, ctx.locks, evidence.repo.gitdir);
  if (seen.problem) throw new Error(seen.problem);
  evidence.lock = seen.lock;
  evidence.lockDir = seen.lockDir;
  if (seen.unattributed) evidence.lockUnattributed = true;
}

async function readWorktree(evidence: RepoEvidence): Promise<void> {
  const config = path.join(evidence.repo.gitdir, 'config');
  const recorded = await readRecordedWorktree(config);
  if (recorded.state === 'unrecorded') {
    evidence.worktreeProblem = `${config} records no core.worktree`;
    return;
  }
  if (recorded.state === 'unreadable') {
    evidence.worktreeProblem = `${config} cannot be read: ${recorded.problem}`;
    if (recorded.incomplete) evidence.unreadableContent = evidence.worktreeProblem;
    return;
  }
  // git reads a relative core.worktree against the git dir.
  evidence.worktree = path.resolve(evidence.repo.gitdir, recorded.value);
  if (sha1hex(evidence.worktree) !== evidence.repo.name) return;
  try {
    evidence.worktreeExists = (await lstatOrNull(evidence.worktree)) ? 'yes' : 'no';
  } catch (err) {
    evidence.worktreeProblem = `${evidence.worktree} cannot be looked at: ${errorMessage(err)}`;
  }
}

/** R of a managed worktree: named by its path, or by the project's row for Kilo's data folder. */
function ownerOf(place: ManagedPlace, records: KiloRecords | null): { path: string | null; problem?: string } {
  if (place.kind === 'repo') return { path: place.owner };
  if (!records) return { path: null, problem: `no database names the repository of project ${place.projectId}` };
  const worktrees = [...(records.projects.get(place.projectId) ?? [])];
  if (worktrees.length === 0)
    return {
      path: null,
      problem: `no project row ${place.projectId} in ${records.files.join(', ') || 'any database'}`,
    };
  if (worktrees.length > 1)
    return { path: null, problem: `the databases disagree on project ${place.projectId}: ${worktrees.join(', ')}` };
  return { path: worktrees[0] as string };
}

async function newestMtime(paths: string[]): Promise<number | null> {
  let newest: number | null = null;
  for (const entry of paths) {
    const stats = await lstatOrNull(entry);
    if (stats && (newest === null || stats.mtimeMs > newest)) newest = stats.mtimeMs;
  }
  return newest;
}
