import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import type { RootStatus } from '../../model/types.js';
import { IncompleteAnswer, runGit } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { findQuarantines, quarantinedName } from '../../safety/removal/quarantine.js';
import { errorMessage } from '../../model/errors.js';
import type { OwnerJudgement } from '../../model/types.js';
import { refsContaining } from '../../engines/git-worktree/ancestry.js';
import type { WorktreeEvidence } from '../../engines/git-worktree/evidence.js';
import { adminEntryRemoval, findStaleAdminEntries, type StaleAdminEntry } from '../../engines/git-worktree/prune.js';
import { describeUnheldRefs } from '../../engines/git-worktree/worktree-refs-held.js';
import { isRemovableJob } from './judge.js';
import { owlWorktreeConfigs, owlWorktrees, type OwlLocation } from './layout.js';
import type { OwlJob, OwlState } from './state.js';

/** A worktree folder under Owl's worktrees/ and the job it belongs to. */
export interface OwlFolder {
  path: string;
  name: string;
  job: OwlJob | null;
}

function describeJob(job: OwlJob | null): string {
  return job === null ? 'no job in owl.db matches it' : `job ${job.id} is ${job.state}`;
}

/**
 * `worktree-config/<id>/` folders whose worktree is gone and whose job is done, cancelled or gone:
 * the per-worktree git config Owl leaves when a worktree goes some other way than through it.
 */
export async function orphanConfigCandidates(
  location: OwlLocation,
  folders: readonly OwlFolder[],
  state: OwlState,
): Promise<Candidate[]> {
  const configsDir = owlWorktreeConfigs(location);
  const folderNames = new Set(folders.map((folder) => folder.name));
  const jobsWithFolder = new Set(folders.map((folder) => folder.job?.id));
  const found: Candidate[] = [];
  for (const entry of await readdirOrEmpty(configsDir)) {
    if (!entry.isDirectory() || quarantinedName(entry.name) !== null || folderNames.has(entry.name)) continue;
    const job = /^[1-9]\d*$/.test(entry.name) ? (state.jobs.get(Number(entry.name)) ?? null) : null;
    if (job && (jobsWithFolder.has(job.id) || !isRemovableJob(job))) continue;
    if (job?.worktree && (await lstatOrNull(job.worktree))) continue;
    found.push({
      provider: 'owl',
      kind: 'worktree-admin',
      path: path.join(configsDir, entry.name),
      root: configsDir,
      judgement: {
        decision: 'delete',
        reason: 'orphan-worktree-config',
        detail: `${describeJob(job)} and its worktree is gone; this per-worktree git config folder is all that is left`,
      },
    });
  }
  return found;
}

/**
 * Stale admin entries of the projects' repositories, each its own candidate, only for worktrees
 * under Owl's own worktrees/ whose job no longer owns them; and quarantines a killed pass left
 * among those entries.
 */
export async function adminEntryCandidates(
  location: OwlLocation,
  state: OwlState,
  evidence: readonly WorktreeEvidence[],
  ctx: GatherContext,
  homeOwner: Owner,
): Promise<{ candidates: Candidate[]; refused: RootStatus[] }> {
  const worktreesDir = owlWorktrees(location);
  const refused: RootStatus[] = [];
  if (!(await lstatOrNull(worktreesDir))?.isDirectory()) return { candidates: [], refused };
  const commonDirs = new Set<string>();
  for (const found of evidence) if (found.state === 'linked') commonDirs.add(found.link.commonDir);
  for (const project of state.projects) {
    const common = await commonDirOf(project.path);
    if (common) commonDirs.add(common);
    else
      ctx.log.debug(
        { project: project.name, path: project.path },
        'project repository not reachable; its admin entries are left alone',
      );
  }
  const byPath = new Map<string, OwlJob>();
  for (const job of state.jobs.values()) if (job.worktree) byPath.set(path.resolve(job.worktree), job);

  const found: Candidate[] = [];
  for (const common of [...commonDirs].sort()) {
    const adminRoot = path.join(common, 'worktrees');
    // A project's admin folder is read as the home owner's only (rule 20): never through a link to another user's.
    const located = locate(adminRoot, { owner: homeOwner, of: `the owner of ${location.data}` });
    if (located.state === 'refused') {
      refused.push({ provider: 'owl', root: adminRoot, ok: false, error: located.detail });
      continue;
    }
    for (const leftover of await findQuarantines(adminRoot)) {
      found.push({
        provider: 'owl',
        kind: 'quarantine',
        path: leftover,
        root: adminRoot,
        judgement: {
          decision: 'delete',
          reason: 'quarantine-leftover',
          detail: `${path.basename(leftover)} is a pruned admin entry an earlier pass did not finish deleting`,
        },
      });
    }
    for (const entry of await findStaleAdminEntries(common, worktreesDir)) {
      const name = path.basename(entry.worktree);
      const job =
        byPath.get(entry.worktree) ?? (/^[1-9]\d*$/.test(name) ? state.jobs.get(Number(name)) : undefined) ?? null;
      if (!isRemovableJob(job)) continue;
      const held = submoduleRepositories(entry) ?? (await ownRefsHeld(entry, common));
      if (held) {
        found.push({
          provider: 'owl',
          kind: 'worktree-admin',
          path: entry.adminDir,
          root: entry.adminRoot,
          judgement: held,
        });
        continue;
      }
      found.push({
        provider: 'owl',
        kind: 'worktree-admin',
        path: entry.adminDir,
        root: entry.adminRoot,
        judgement: {
          decision: 'delete',
          reason: 'stale-admin-entry',
          detail: `the admin entry names ${entry.worktree} under Owl's worktrees folder, which is gone, and ${describeJob(job)}; pruned alone, never with git worktree prune`,
        },
        removal: adminEntryRemoval(entry, worktreesDir),
      });
    }
  }
  return { candidates: found, refused };
}

/** A stale entry that holds a submodule's repository keeps it: its commits may exist nowhere else (rule 24). */
function submoduleRepositories(entry: StaleAdminEntry): OwnerJudgement | null {
  if (entry.submoduleGitDirs === null) return null;
  return {
    decision: 'unfinished',
    reason: 'nested-repository',
    detail: `its worktree ${entry.worktree} is gone, but the admin entry holds submodule repositories in ${entry.submoduleGitDirs}, whose commits may exist nowhere else; not pruned`,
  };
}

/**
 * Why a stale admin entry must stay, or null: pruning it deletes its per-worktree refs, so each
 * commit they name must be held by a branch, remote-tracking branch or tag (rule 15).
 */
async function ownRefsHeld(entry: StaleAdminEntry, common: string): Promise<OwnerJudgement | null> {
  if (entry.worktreeRefs === null)
    return {
      decision: 'refused',
      reason: 'unreadable',
      detail: `the admin entry's own refs cannot be read from its files (reftable, or a ref this reader does not understand); not pruned`,
    };
  const unheld = [];
  for (const ref of entry.worktreeRefs) {
    if (ref.commit === null) continue;
    try {
      if ((await refsContaining(common, ref.commit)).length === 0)
        unheld.push({ name: ref.name, commit: ref.commit, containingRefs: [] });
    } catch (err) {
      return {
        decision: 'refused',
        reason: err instanceof IncompleteAnswer ? 'unreadable-content' : 'git-failed',
        detail: `what holds ${ref.name} of the admin entry cannot be told: ${errorMessage(err)}`,
      };
    }
  }
  if (unheld.length === 0) return null;
  return {
    decision: 'unfinished',
    reason: 'unique-commits',
    detail: `its worktree ${entry.worktree} is gone, but ${describeUnheldRefs(unheld)}`,
  };
}

/** The common git dir of a project repository, or null when it cannot be reached. */
async function commonDirOf(repo: string): Promise<string | null> {
  if (!repo || !(await lstatOrNull(repo))) return null;
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: repo,
      timeoutMs: 10_000,
    });
  } catch (err) {
    // git could not read all of it (rule 22): its admin entries are left alone, as for one it cannot reach.
    if (err instanceof IncompleteAnswer) return null;
    throw err;
  }
  if (result.code !== 0) return null;
  const common = result.stdout.trim();
  return common ? path.resolve(common) : null;
}
