import type { Logger } from 'pino';
import { errorMessage } from './errors.js';
import type { ApplyContext, Candidate, ReportItem } from './types.js';
import { asOwner, deleteIdentity, type Owner } from '../safety/owner.js';
import { moveToQuarantine } from '../safety/quarantine.js';
import { removeTree } from '../safety/remove.js';
import { lstatOrNullSync } from '../safety/fs.js';
import type { InspectedFacts } from '../safety/inspect.js';

export interface PlannedDeletion {
  candidate: Candidate;
  facts: InspectedFacts | null;
  item: ReportItem;
}

export interface ExecuteOptions {
  log: Logger;
  /** Called after each deletion, for the audit log. */
  onDeleted(item: ReportItem): Promise<void>;
  /**
   * The pids with anything inside a folder at this moment, asked right before it is deleted;
   * absent when processes are not checked.
   */
  processesInside?: (target: string) => Promise<number[]>;
}

/**
 * Carries out the deletions of a plan, quarantines first. Each item is one try: a failure is
 * logged with its error, counted as `failed`, and the rest go on. Answers what it touched.
 */
export async function executePlan(plan: readonly PlannedDeletion[], options: ExecuteOptions): Promise<ReportItem[]> {
  const ordered = [...plan].sort((a, b) => rank(a) - rank(b));
  const touched: ReportItem[] = [];
  for (const entry of ordered) {
    const { item } = entry;
    try {
      // Rule 0 again at the last moment: a process may have started inside since the plan.
      const pids = entry.candidate.path !== null && options.processesInside ? await options.processesInside(entry.candidate.path) : [];
      if (pids.length > 0) {
        item.verdict = 'refused';
        item.reason = 'in-use';
        item.detail = `process ${pids.slice(0, 5).join(', ')} started inside after it was judged and has its working directory, root, an open file or a mapping there; left alone`;
        touched.push(item);
        continue;
      }
      await applyOne(entry, options.log);
      item.verdict = 'deleted';
      touched.push(item);
      await options.onDeleted(item);
      options.log.info({ provider: item.provider, kind: item.kind, path: item.path, bytes: item.bytes, reason: item.reason }, 'deleted');
    } catch (err) {
      item.verdict = 'failed';
      item.detail = `deletion failed: ${errorMessage(err)} (was: ${item.detail})`;
      item.reason = 'delete-failed';
      options.log.warn({ err, provider: item.provider, path: item.path }, 'deletion failed');
      touched.push(item);
    }
  }
  return touched;
}

function rank(entry: PlannedDeletion): number {
  return entry.candidate.kind === 'quarantine' ? 0 : 1;
}

async function applyOne(entry: PlannedDeletion, log: Logger): Promise<void> {
  const { candidate, facts } = entry;
  if (candidate.path === null) throw new Error('an item without a folder cannot be deleted');
  const owner: Owner | null = facts
    ? deleteIdentity({ uid: facts.path.parentUid, gid: facts.path.parentGid, mode: facts.path.parentMode }, { uid: facts.path.uid, gid: facts.path.gid })
    : null;
  const removal = candidate.removal ?? { type: 'tree' };
  if (removal.type === 'tree') {
    if (facts) assertUnchanged(candidate.path, facts);
    removeQuarantined(candidate.path, candidate.kind === 'quarantine', owner);
    return;
  }
  const context: ApplyContext = {
    owner,
    log,
    removeTree: async (target: string) => removeQuarantined(target, false, owner),
  };
  await removal.apply(context);
}

/** The folder judged must be the folder deleted: a swap (for a link, say) after the plan stops it. */
function assertUnchanged(target: string, facts: InspectedFacts): void {
  const now = lstatOrNullSync(target);
  if (!now) throw new Error(`${target} disappeared after it was judged`);
  if (!now.isDirectory() || now.ino !== facts.path.ino || now.dev !== facts.path.dev) {
    throw new Error(`${target} was replaced after it was judged (now ${now.isSymbolicLink() ? 'a symlink' : 'another entry'}); left alone`);
  }
}

/** Rename into quarantine (unless it is one already), then remove; both as the owner. */
export function removeQuarantined(target: string, alreadyQuarantined: boolean, owner: Owner | null): void {
  asOwner(owner, () => {
    const doomed = alreadyQuarantined ? target : moveToQuarantine(target);
    removeTree(doomed);
  });
}
