import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { kiloConfig } from './config.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { OwnerJudgement, RootStatus } from '../../model/types.js';
import { garbageNote, type RepositoryGarbage } from '../../engines/git-garbage/candidates.js';
import { walCandidates, type WalDatabase } from '../../engines/sqlite-wal/candidates.js';
import { locate } from '../../safety/owners/locations.js';
import { besideBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { mapLimit } from '../../util/limit.js';
import { databaseFiles, readKiloRecords, type KiloRecords } from './database.js';
import { attachOwner, collectLocalEvidence, type EvidenceContext } from './evidence.js';
import { judgeRepo, legacyJudgement, lockHeld } from './judge.js';
import { appName, kiloLocations, snapshotRoot, usesSnapshotLock, type KiloLocation } from './layout.js';
import { kiloDeleteLeftovers, ownerRepositories } from './leftovers.js';
import { lockOf, snapshotLocksOf, surveyLocks } from './lock-places.js';
import { OwnerRepos } from './owner-repo.js';
import { checkpointRemoval } from './removal.js';
import { retentionCandidates } from './retention.js';
import { legacyGarbage, repositoryGarbage, type KiloLockContext } from './garbage.js';
import { listSnapshots, type SnapshotListing } from './snapshots.js';

/** Kilo Code and opencode: per-worktree checkpoint ("snapshot") repositories. */
export const kiloGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => {
    const section = kiloConfig(config);
    return section.dataDir === undefined && section.stateDir === undefined;
  },
  async claimedAreas(ctx) {
    return kiloLocations(ctx).map((location) => ({ owner: 'kilo', folder: snapshotRoot(location.dataDir) }));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const placed = kiloLocations(ctx).flatMap((location) => {
      const found = locateInstall(location);
      return found === null ? [] : [{ location, found }];
    });
    // Each owner repository is read once per pass, for every data folder whose repositories it owns.
    const owners = new OwnerRepos();
    // Data folders side by side: each waits mostly on git reading its owner repositories.
    const gathered = await mapLimit(placed, LOCATIONS_AT_ONCE, async ({ location, found }) =>
      'status' in found ? null : gatherLocation(location, found.owner, ctx, owners),
    );
    const roots: RootStatus[] = [];
    const candidates: Candidate[] = [];
    // In the locations' order, so that a leftover two data folders lead to is always spoken of by the first.
    const seenLeftovers = new Set<string>();
    for (const [k, { found }] of placed.entries()) {
      if ('status' in found) {
        roots.push(found.status);
        continue;
      }
      const location = gathered[k] as Awaited<ReturnType<typeof gatherLocation>>;
      roots.push(location.root);
      candidates.push(...location.candidates);
      const leftovers = await kiloDeleteLeftovers(location.leftoverOwners, seenLeftovers, found.owner);
      roots.push(...leftovers.refused);
      candidates.push(...leftovers.candidates);
    }
    return { roots, candidates };
  },
};

/**
 * The data folder, its snapshot folder, its state folder and a database the environment names,
 * each through the resolver of locations (rule 20): the owner of the home they belong to, null when
 * Kilo is not installed there (or its folder cannot be looked at), or the root entry that says
 * which link was not followed.
 */
function locateInstall(location: KiloLocation): { owner: Owner } | { status: RootStatus } | null {
  const data = locate(location.dataDir, location.basis);
  if (data.state === 'absent' || data.state === 'unreadable') return null;
  const refused = (detail: string) => ({
    status: { provider: 'kilo' as const, root: location.dataDir, ok: false, error: detail },
  });
  if (data.state === 'refused') return refused(data.detail);
  const beside = besideBasis(location.basis, data);
  const others = [
    locate(snapshotRoot(location.dataDir), beside),
    ...(location.stateDir ? [locate(location.stateDir, beside)] : []),
    ...(location.extraDatabase ? [locate(location.extraDatabase, beside, 'file')] : []),
  ];
  for (const other of others)
    if (other.state === 'refused' || other.state === 'unreadable') return refused(other.detail);
  return { owner: data.owner };
}

const LOCATIONS_AT_ONCE = 4;

async function gatherLocation(
  location: KiloLocation,
  homeOwner: Owner,
  ctx: GatherContext,
  owners: OwnerRepos,
): Promise<{ root: RootStatus; candidates: Candidate[]; leftoverOwners: string[] }> {
  const root: RootStatus = { provider: 'kilo', root: location.dataDir, ok: true };
  const candidates: Candidate[] = [];
  let listing: SnapshotListing;
  try {
    listing = await listSnapshots(location.dataDir);
  } catch (err) {
    return {
      root: { ...root, ok: false, error: `${snapshotRoot(location.dataDir)} cannot be listed: ${errorMessage(err)}` },
      candidates,
      leftoverOwners: [],
    };
  }

  // Kilo Code's lock folder, read once for the data folder, every spelling of every repository at once.
  const nowMs = ctx.now.getTime();
  const locks = snapshotLocksOf(location, homeOwner.uid, ctx.processes, ctx.env);
  const known = [
    ...listing.repos.map((repo) => repo.gitdir),
    ...listing.legacy.map((legacy) => legacy.path),
    ...listing.quarantines.filter((each) => each.original).map((each) => path.join(each.projectDir, each.original)),
  ];
  const lockContext: KiloLockContext = { locks, survey: locks ? surveyLocks(locks, known, nowMs) : null, known };

  // Quarantines first: they were proven dead when they were made, whatever the database says now.
  for (const quarantine of listing.quarantines)
    candidates.push({
      ...quarantineCandidate(quarantine.path, quarantine.original, quarantine.projectDir, location, lockContext),
      homeOwner,
    });

  let records: KiloRecords | null = null;
  let sourceProblem = location.problem;
  // The databases whose logs a checkpoint may reclaim: each found as the home owner's (rule 20).
  const logged: WalDatabase[] = [];
  if (!sourceProblem) {
    try {
      const files = await databaseFiles(location.dataDir, location.extraDatabase);
      // A database that is a link to another user's file is no record of this home's (rule 20).
      const beside = besideBasis(location.basis, { path: location.dataDir, owner: homeOwner });
      for (const file of files) {
        const database = locate(file, beside, 'file');
        if (database.state === 'refused') throw new Error(database.detail);
        if (database.state === 'found') logged.push(walDatabase(file, homeOwner));
      }
      // Examined before they are read: a read of this pass's is no write of the app's.
      candidates.push(...walCandidates('kilo', logged, ctx));
      if (files.length > 0) records = readKiloRecords(files);
    } catch (err) {
      sourceProblem = errorMessage(err);
    }
  }
  if (sourceProblem) {
    root.ok = false;
    root.error = sourceProblem;
  }

  const context: Omit<EvidenceContext, 'nowMs' | 'owners'> = {
    location,
    records,
    ...(sourceProblem ? { sourceProblem } : {}),
    ...lockContext,
  };
  // Walked beside the git runs that read them, for the plan's inspection.
  ctx.measureAhead?.(listing.repos.map((repo) => repo.gitdir));
  const local = await mapLimit(listing.repos, 8, (repo) => collectLocalEvidence(repo, { ...context, nowMs }));
  // Every R at once: the git runner bounds its children, and repositories of one R wait on one read.
  const evidence = await Promise.all(local.map((repoEvidence) => attachOwner(repoEvidence, owners)));
  for (const repoEvidence of evidence) {
    const judgement = judgeRepo(repoEvidence, nowMs);
    // A repository to be deleted takes its garbage with it; any other keeps its own, reported apart.
    const garbage =
      judgement.decision === 'delete' ? null : await repositoryGarbage(repoEvidence, location, homeOwner, lockContext);
    candidates.push({
      provider: 'kilo',
      kind: 'checkpoint-repo',
      path: repoEvidence.repo.gitdir,
      root: snapshotRoot(location.dataDir),
      judgement: withGarbageNote(judgement, garbage),
      homeOwner,
      ...(judgement.decision === 'delete' ? { removal: checkpointRemoval(repoEvidence, context) } : {}),
    });
    candidates.push(...(garbage?.candidates ?? []));
  }
  for (const legacy of listing.legacy) {
    const garbage = await legacyGarbage(legacy.path, location, homeOwner, sourceProblem, lockContext);
    const judgement: OwnerJudgement = sourceProblem
      ? { decision: 'refused', reason: 'source-unreadable', detail: sourceProblem }
      : legacyJudgement(legacy.path, legacy.nestedRepos, location.app);
    candidates.push({
      provider: 'kilo',
      kind: 'checkpoint-repo',
      path: legacy.path,
      root: snapshotRoot(location.dataDir),
      judgement: withGarbageNote(judgement, garbage),
      homeOwner,
    });
    candidates.push(...(garbage?.candidates ?? []));
  }

  // The app's own retention of its logs, tool outputs and session diffs, where it fails to apply it.
  candidates.push(...(await retentionCandidates(location, homeOwner, records, sourceProblem, ctx)));

  // The Agent Manager's half-deleted worktrees, in every repository Kilo's records lead to.
  const directories = new Set<string>(records?.directories ?? []);
  for (const repoEvidence of evidence) if (repoEvidence.worktree) directories.add(repoEvidence.worktree);
  ctx.log.debug(
    { dataDir: location.dataDir, repos: listing.repos.length, databases: records?.files ?? [] },
    'kilo location gathered',
  );
  return { root, candidates, leftoverOwners: [...ownerRepositories(directories, location.dataDir)] };
}

/** One of Kilo's or opencode's databases, for the SQLite log engine: read at every pass for its records. */
function walDatabase(file: string, homeOwner: Owner): WalDatabase {
  return {
    database: file,
    root: path.dirname(file),
    homeOwner,
    tool: path.basename(file).startsWith('opencode') ? 'opencode' : 'Kilo Code',
    readByThePass: true,
  };
}

function withGarbageNote(judgement: OwnerJudgement, garbage: RepositoryGarbage | null): OwnerJudgement {
  const note = garbage ? garbageNote(garbage) : '';
  return note === '' ? judgement : { ...judgement, detail: `${judgement.detail}${note}` };
}

function quarantineCandidate(
  target: string,
  original: string,
  projectDir: string,
  location: KiloLocation,
  { locks, survey }: KiloLockContext,
): Candidate {
  const candidate: Candidate = {
    provider: 'kilo',
    kind: 'quarantine',
    path: target,
    root: snapshotRoot(location.dataDir),
    judgement: {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(target)} is a checkpoint repository of ${appName(location.app)}, renamed for deletion, whose removal did not finish`,
    },
  };
  // Kilo removes its quarantine under the lock of the repository it was, under whichever spelling
  // of its path it hashed; never race it. A lock folder that cannot be read does not hold back a
  // quarantine (rule 11); a live lock does.
  if (!original || !locks || !survey || !usesSnapshotLock(location.app)) return candidate;
  const seen = lockOf(survey, locks, path.join(projectDir, original));
  if (seen.lock.state !== 'fresh' || seen.problem) return candidate;
  const held = lockHeld(
    { app: location.app, lockDir: seen.lockDir, ...(seen.unattributed ? { lockUnattributed: true as const } : {}) },
    seen.lock,
  );
  candidate.judgement = {
    decision: 'refused',
    reason: 'kilo-lock-held',
    detail: `${held}: ${location.app === 'kilo' ? 'Kilo Code' : 'its holder'} may be removing ${path.basename(target)} itself`,
  };
  return candidate;
}
