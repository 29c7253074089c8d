import path from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from './errors.js';
import type { ApplyContext, Candidate, ReportItem } from './types.js';
import { asOwner, deleteIdentity, type Owner } from '../safety/owner.js';
import { moveToQuarantine, quarantinedName } from '../safety/quarantine.js';
import { removeTree } from '../safety/remove.js';
import { lstatOrNullSync, renameSync } from '../safety/fs.js';
import type { InspectedFacts } from '../safety/inspect.js';
import { arrivalSince } from '../safety/late-arrival.js';
import type { ProcessTable } from '../safety/processes.js';
import type { TreeInodes } from '../safety/walk-watch.js';

export interface PlannedDeletion {
  candidate: Candidate;
  facts: InspectedFacts | null;
  item: ReportItem;
  /** The inodes the plan's walk saw in it, for the last look at /proc (absent: by path only). */
  inodes?: TreeInodes | null;
}

/** What became of one planned deletion: its item as planned, and as the report now shows it. */
export interface ExecutedDeletion {
  planned: ReportItem;
  /** A copy of the planned item: `deleted`, or `failed` or `refused` with why. */
  outcome: ReportItem;
}

export interface ExecuteOptions {
  log: Logger;
  /** Called after each deletion with its outcome, for the audit log. */
  onDeleted(item: ReportItem): Promise<void>;
  /**
   * A fresh scan of /proc (paths, identities, mounts), taken once after every target is in
   * quarantine and before any is removed; absent when processes are not checked.
   */
  rescanProcesses?: () => ProcessTable;
}

interface Staged extends PlannedDeletion {
  owner: Owner | null;
  /** Where the folder is now: its quarantine for a tree removal, else where it was judged. */
  doomed: string;
}

/**
 * Carries out the deletions of a plan in three steps: every tree target is renamed into its
 * quarantine (quarantines first); one fresh look at /proc; then each is removed, unless a process
 * got inside after the plan, by its path or by the identity of anything the plan's walk saw in it,
 * or a mount namespace mounted it (it is put back and refused). A process cannot wander into a
 * quarantine by its old path, so one look covers every target. Each item is one try: a failure is
 * logged with its error, counted as `failed`, and the rest go on. Answers what became of each
 * item; the plan's items are left as they were.
 */
export async function executePlan(
  plan: readonly PlannedDeletion[],
  options: ExecuteOptions,
): Promise<ExecutedDeletion[]> {
  const ordered = [...plan].sort((a, b) => rank(a) - rank(b));
  const touched: ExecutedDeletion[] = [];
  const staged: Staged[] = [];
  for (const entry of ordered) {
    try {
      staged.push(stage(entry));
    } catch (err) {
      touched.push(fail(entry.item, err, options.log));
    }
  }
  const processes = staged.length > 0 ? options.rescanProcesses?.() : undefined;
  for (const entry of staged) {
    const { item } = entry;
    try {
      const arrival = processes ? arrivalSince(processes, entry.doomed, entry.inodes ?? null) : null;
      if (arrival) {
        touched.push(refuseLateArrival(entry, arrival));
        continue;
      }
      await remove(entry, options.log);
      const deleted: ReportItem = { ...item, verdict: 'deleted' };
      touched.push({ planned: item, outcome: deleted });
      await options.onDeleted(deleted);
      options.log.info(
        { provider: item.provider, kind: item.kind, path: item.path, bytes: item.bytes, reason: item.reason },
        'deleted',
      );
    } catch (err) {
      touched.push(fail(item, err, options.log));
    }
  }
  return touched;
}

function rank(entry: PlannedDeletion): number {
  return entry.candidate.kind === 'quarantine' ? 0 : 1;
}

/** Checks the folder is the one judged and, for a tree removal, renames it into quarantine. */
function stage(entry: PlannedDeletion): Staged {
  const { candidate, facts } = entry;
  if (candidate.path === null) throw new Error('an item without a folder cannot be deleted');
  const owner: Owner | null = facts
    ? deleteIdentity(
        { uid: facts.path.parentUid, gid: facts.path.parentGid, mode: facts.path.parentMode },
        { uid: facts.path.uid, gid: facts.path.gid },
      )
    : null;
  const removal = candidate.removal ?? { type: 'tree' };
  if (removal.type !== 'tree' || candidate.kind === 'quarantine') return { ...entry, owner, doomed: candidate.path };
  if (facts) assertUnchanged(candidate.path, facts);
  const doomed = asOwner(owner, () => moveToQuarantine(candidate.path as string));
  return { ...entry, owner, doomed };
}

async function remove(entry: Staged, log: Logger): Promise<void> {
  const removal = entry.candidate.removal ?? { type: 'tree' };
  if (removal.type === 'tree') {
    asOwner(entry.owner, () => removeTree(entry.doomed));
    return;
  }
  const context: ApplyContext = {
    owner: entry.owner,
    log,
    removeTree: async (target: string) => removeQuarantined(target, false, entry.owner),
  };
  await removal.apply(context);
}

/** A process got inside after the plan (or a mount of it appeared): the folder goes back where it was, and is refused. */
function refuseLateArrival(entry: Staged, arrival: string): ExecutedDeletion {
  const { item, candidate } = entry;
  let where = 'left alone';
  if (
    candidate.path !== null &&
    entry.doomed !== candidate.path &&
    quarantinedName(path.basename(entry.doomed)) !== null
  ) {
    try {
      if (lstatOrNullSync(candidate.path)) throw new Error(`${candidate.path} exists again`);
      asOwner(entry.owner, () => renameSync(entry.doomed, candidate.path as string));
      where = 'put back where it was';
    } catch (err) {
      where = `left in quarantine at ${entry.doomed} (${errorMessage(err)}); the next pass judges it again`;
    }
  }
  return { planned: item, outcome: { ...item, verdict: 'refused', reason: 'in-use', detail: `${arrival}; ${where}` } };
}

function fail(item: ReportItem, err: unknown, log: Logger): ExecutedDeletion {
  log.warn({ err, provider: item.provider, path: item.path }, 'deletion failed');
  const detail = `deletion failed: ${errorMessage(err)} (was: ${item.detail})`;
  return { planned: item, outcome: { ...item, verdict: 'failed', reason: 'delete-failed', detail } };
}

/** The folder judged must be the folder deleted: a swap (for a link, say) after the plan stops it. */
function assertUnchanged(target: string, facts: InspectedFacts): void {
  const now = lstatOrNullSync(target);
  if (!now) throw new Error(`${target} disappeared after it was judged`);
  if (!now.isDirectory() || now.ino !== facts.path.ino || now.dev !== facts.path.dev) {
    throw new Error(
      `${target} was replaced after it was judged (now ${now.isSymbolicLink() ? 'a symlink' : 'another entry'}); left alone`,
    );
  }
}

/** Rename into quarantine (unless it is one already), then remove; both as the owner. */
export function removeQuarantined(target: string, alreadyQuarantined: boolean, owner: Owner | null): void {
  asOwner(owner, () => {
    const doomed = alreadyQuarantined ? target : moveToQuarantine(target);
    removeTree(doomed);
  });
}
