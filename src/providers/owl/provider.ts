import path from 'node:path';
import { durationMs } from '../../util/duration.js';
import { errorMessage } from '../../model/errors.js';
import { owlConfig } from './config.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { locate } from '../../safety/owners/locations.js';
import { besideBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { findQuarantines, quarantinedName } from '../../safety/removal/quarantine.js';
import { examineWorktrees, type WorktreeEvidence } from '../../engines/git-worktree/evidence.js';
import { scanNested, type NestedScan } from '../../engines/git-worktree/nested.js';
import { gitWorktreeRemoval } from '../../engines/git-worktree/remove.js';
import { probeDaemon } from './daemon.js';
import { adminEntryCandidates, type OwlFolder, orphanConfigCandidates } from './leftovers.js';
import { isRemovableJob, judgeLiveJob, judgeRemovableWorktree, type OwlRuleContext } from './judge.js';
import { owlDb, owlLocations, owlWorktreeConfigs, owlWorktrees, type OwlLocation } from './layout.js';
import { readReviewAfter } from './settings.js';
import { readOwlState, type OwlJob, type OwlState } from './state.js';

/** Coding Owl's job worktrees, judged by ADR-0015 against owl.db and the daemon's socket. */
export const owlGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => {
    const section = owlConfig(config);
    return section.dataDir === undefined && section.stateDir === undefined;
  },
  async claimedAreas(ctx) {
    return (await owlLocations(ctx)).flatMap((location) => [
      { owner: 'owl', folder: owlWorktrees(location) },
      { owner: 'owl', folder: owlWorktreeConfigs(location) },
    ]);
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const out: Gathering = { roots: [], candidates: [] };
    for (const location of await owlLocations(ctx)) {
      try {
        const found = await gatherLocation(location, ctx);
        out.roots.push(...found.roots);
        out.candidates.push(...found.candidates);
      } catch (err) {
        // One home's unreadable folder fails that home alone (rule 1); the other homes go on.
        out.roots.push({
          provider: 'owl',
          root: location.data,
          ok: false,
          error: `${location.data}: ${errorMessage(err)}`,
        });
      }
    }
    return out;
  },
};

async function gatherLocation(location: OwlLocation, ctx: GatherContext): Promise<Gathering> {
  const placed = locateInstall(location);
  if (placed === null) return { roots: [], candidates: [] };
  if ('error' in placed)
    return { roots: [{ provider: 'owl', root: location.data, ok: false, error: placed.error }], candidates: [] };
  const { homeOwner } = placed;
  const worktreesDir = owlWorktrees(location);
  // Quarantines first: they were proven dead when made, whatever owl.db says now (rule 11).
  const candidates: Candidate[] = [];
  for (const dir of [worktreesDir, owlWorktreeConfigs(location)]) {
    for (const leftover of await findQuarantines(dir)) candidates.push(quarantineCandidate(leftover, dir));
  }
  const folderPaths = await listFolders(worktreesDir);

  let state: OwlState;
  try {
    state = await readOwlState(owlDb(location));
  } catch (err) {
    const error = errorMessage(err);
    ctx.log.warn({ data: location.data, error }, 'owl.db unreadable; failing closed');
    for (const folder of folderPaths) {
      candidates.push({
        provider: 'owl',
        kind: 'worktree',
        path: folder,
        root: worktreesDir,
        judgement: {
          decision: 'refused',
          reason: 'source-unreadable',
          detail: `owl.db cannot be read, so no job can be matched: ${error}`,
        },
      });
    }
    return {
      roots: [{ provider: 'owl', root: location.data, ok: false, error }],
      candidates: owned(candidates, homeOwner),
    };
  }

  const section = owlConfig(ctx.config);
  const reviewAfter = await readReviewAfter(location.configFile, durationMs(section.reviewAfter), section.reviewAfter);
  if (reviewAfter.warning)
    ctx.log.warn({ warning: reviewAfter.warning }, 'Owl config ignored; using providers.owl.reviewAfter');
  const anyActive = [...state.jobs.values()].some((job) => job.state === 'active');
  const rule: OwlRuleContext = {
    nowMs: ctx.now.getTime(),
    reviewAfter,
    daemon: anyActive ? await probeDaemon(location.sockets) : null,
    lastRunEnded: state.lastRunEnded,
    openRuns: state.openRuns,
  };

  const folders = matchFolders(folderPaths, state);
  const removable = folders.filter((folder) => isRemovableJob(folder.job));
  const evidence = new Map<string, WorktreeEvidence>();
  // git over the job worktrees runs as the home's owner (rule 20), never as a link's target's.
  const examined = await examineWorktrees(
    removable.map((folder) => folder.path),
    undefined,
    () => homeOwner,
  );
  for (const found of examined) evidence.set(found.path, found);

  for (const folder of folders) {
    const found = evidence.get(folder.path);
    // The walk the safety engine makes of the folder anyway, shared through the pass's cache.
    const nested = found?.state === 'linked' ? scanNested(found.link.path, ctx.measure) : null;
    candidates.push(folderCandidate(folder, worktreesDir, location, rule, found, nested));
  }
  candidates.push(...jobFindings(folders, state, rule, worktreesDir));
  candidates.push(...(await orphanConfigCandidates(location, folders, state)));
  const admin = await adminEntryCandidates(location, state, [...evidence.values()], ctx, homeOwner);
  candidates.push(...admin.candidates);
  return {
    roots: [{ provider: 'owl', root: location.data, ok: true }, ...admin.refused],
    candidates: owned(candidates, homeOwner),
  };
}

/**
 * The data folder, its worktrees/ and worktree-config/, the state folder and the config file, each
 * through the resolver of locations (rule 20): the home's owner, null where Owl is not installed,
 * or why a folder is not read (a link to another user's files, a folder that cannot be looked at).
 */
function locateInstall(location: OwlLocation): { homeOwner: Owner } | { error: string } | null {
  const data = locate(location.data, location.basis);
  if (data.state === 'absent') return null;
  if (data.state !== 'found') return { error: data.detail };
  const beside = besideBasis(location.basis, data);
  const others = [
    locate(owlWorktrees(location), beside),
    locate(owlWorktreeConfigs(location), beside),
    ...(location.state ? [locate(location.state, beside)] : []),
    ...(location.configFile ? [locate(location.configFile, beside, 'file')] : []),
  ];
  for (const other of others)
    if (other.state === 'refused' || other.state === 'unreadable') return { error: other.detail };
  return { homeOwner: data.owner };
}

function owned(candidates: Candidate[], homeOwner: Owner): Candidate[] {
  return candidates.map((candidate) => ({ ...candidate, homeOwner }));
}

async function listFolders(dir: string): Promise<string[]> {
  const entries = await readdirOrEmpty(dir);
  return entries
    .filter((entry) => entry.isDirectory() && quarantinedName(entry.name) === null)
    .map((entry) => path.join(dir, entry.name))
    .sort();
}

/** A folder belongs to the job that recorded its path, else to the job its name is the id of. */
function matchFolders(folders: readonly string[], state: OwlState): OwlFolder[] {
  const byPath = new Map<string, OwlJob>();
  for (const job of state.jobs.values()) if (job.worktree) byPath.set(path.resolve(job.worktree), job);
  return folders.map((folder) => {
    const name = path.basename(folder);
    const byName = /^[1-9]\d*$/.test(name) ? state.jobs.get(Number(name)) : undefined;
    return { path: folder, name, job: byPath.get(folder) ?? byName ?? null };
  });
}

function folderCandidate(
  folder: OwlFolder,
  root: string,
  location: OwlLocation,
  rule: OwlRuleContext,
  evidence: WorktreeEvidence | undefined,
  nested: NestedScan | null,
): Candidate {
  const base = { provider: 'owl' as const, kind: 'worktree' as const, path: folder.path, root };
  if (!isRemovableJob(folder.job)) return { ...base, judgement: judgeLiveJob(folder.job as OwlJob, rule) };
  if (!evidence)
    return {
      ...base,
      judgement: { decision: 'refused', reason: 'git-failed', detail: 'the worktree was not examined' },
    };
  const judgement = judgeRemovableWorktree(folder.job, evidence, nested ?? { ok: false, error: 'not walked' });
  const candidate: Candidate = { ...base, judgement };
  if (evidence.state === 'linked') {
    candidate.alsoWatch = [evidence.link.adminDir];
    if (judgement.decision === 'delete') {
      const config = path.join(owlWorktreeConfigs(location), folder.job ? String(folder.job.id) : folder.name);
      candidate.removal = gitWorktreeRemoval({
        judged: evidence,
        rejudge: (fresh) =>
          judgeRemovableWorktree(
            folder.job,
            fresh,
            fresh.state === 'linked' ? scanNested(fresh.link.path) : { ok: false, error: fresh.path },
          ),
        alsoRemove: [config],
      });
    }
  }
  return candidate;
}

/** Jobs that need a person but have no worktree folder here: reported as `job` findings. */
function jobFindings(
  folders: readonly OwlFolder[],
  state: OwlState,
  rule: OwlRuleContext,
  worktreesDir: string,
): Candidate[] {
  const withFolder = new Set(folders.map((folder) => folder.job?.id).filter((id) => id !== undefined));
  const findings: Candidate[] = [];
  for (const job of state.jobs.values()) {
    if (withFolder.has(job.id) || isRemovableJob(job)) continue;
    const judgement = judgeLiveJob(job, rule);
    if (judgement.decision !== 'unfinished') continue;
    const recorded = job.worktree ? `; its recorded worktree is ${job.worktree}` : '';
    const where = ` (no worktree folder of it in ${worktreesDir}${recorded})`;
    findings.push({
      provider: 'owl',
      kind: 'job',
      path: null,
      root: null,
      judgement: { ...judgement, detail: `${judgement.detail}${where}` },
    });
  }
  return findings;
}

function quarantineCandidate(leftover: string, dir: string): Candidate {
  return {
    provider: 'owl',
    kind: 'quarantine',
    path: leftover,
    root: dir,
    judgement: {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(leftover)} is a quarantine an earlier pass proved dead and did not finish deleting`,
    },
  };
}
