import path from 'node:path';
import type { Logger } from 'pino';
import { errorMessage, RemovalStopped } from '../model/errors.js';
import { onOneFile, type Candidate, type GuardHold, type Removal } from '../provider-api/candidate.js';
import type { CheckpointSizes, ReportItem } from '../model/types.js';
import { TreeSwappedError } from '../safety/fs/cwd-cursor.js';
import {
  asOwner,
  deleteIdentity,
  gitIdentityFor,
  itemIdentity,
  type Owner,
  worktreeRemovalBlocked,
} from '../safety/owners/owner.js';
import { moveToQuarantine } from '../safety/removal/quarantine.js';
import { MountInsideError, removeTree } from '../safety/removal/remove.js';
import { unlinkProvenFile } from '../safety/removal/unlink-file.js';
import { checkpointWal } from '../safety/wal/checkpoint.js';
import { formatBytes } from '../util/format.js';
import { lstatOrNullSync } from '../safety/fs/stat.js';
import { renameSync } from '../safety/fs/entries.js';
import type { InspectedFacts } from './inspect.js';
import { takeLastProof, type ProofSubject } from '../safety/removal/last-proof.js';
import type { ProcessTable } from '../safety/processes/processes.js';
import { changedSince } from '../safety/since.js';
import type { PassProgress } from './progress.js';
import type { TreeInodes } from '../safety/walk/walk-watch.js';
import { mapLimit } from '../util/limit.js';
import { GIT_CONCURRENCY } from '../git/settings.js';
import { removeWorktreeWithGit } from '../git/worktree-remove.js';

export interface PlannedDeletion {
  candidate: Candidate;
  facts: InspectedFacts | null;
  item: ReportItem;
  /** The inodes the plan's walk saw in it: one more reason to keep it at the last proof. */
  inodes?: TreeInodes | null;
}

/** What became of one planned deletion: its item as planned, and as the report now shows it. */
export interface ExecutedDeletion {
  planned: ReportItem;
  /** A copy of the planned item: `deleted`, or `refused`, `unfinished` or `failed` with why. */
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
  /** A fresh look at /proc whatever processCheck says, for a provider's guard that reads the processes again. */
  lookAtProcesses: () => ProcessTable;
  /**
   * The moment (ms, the kernel's clock) the pass read before it began collecting evidence: the last
   * proof keeps every item with an entry changed since (src/safety/since.ts).
   */
  evidenceSinceMs: number;
  /** minAge (ms): a single file's newest write is looked at once more against it, at its last proof. */
  minAgeMs?: number;
  /** Told as each planned deletion ends (a progress line). */
  progress?: Pick<PassProgress, 'settled'>;
  /** The level of the line logged per deletion (default info). */
  itemLogLevel?: 'info' | 'debug';
}

interface Staged extends PlannedDeletion {
  /** Who the item is deleted as (rule 20): its one owner; for a worktree, whom git runs as. */
  owner: Owner | null;
  /** Who may remove its top folder from the folder it sits in: the rename, a put back, the last rmdir. */
  remover: Owner | null;
  removal: Removal;
  /** Where the folder is now: its quarantine, or where it was judged (a quarantine already, a worktree git removes). */
  doomed: string;
  /** Whether the executor renamed it into quarantine (and so may put it back). */
  renamed: boolean;
  /** What the provider's guard holds until the item is gone or put back (Kilo's lock). */
  hold: GuardHold | null;
}

/** What the last proofs of one plan cost, for the log (and the bench). */
interface ProofCost {
  items: number;
  entries: number;
  ms: number;
}

/**
 * Carries out the deletions of a plan, in rounds (see roundsOf). In each round every item is
 * proven again by its provider's guard where it has one and, for a tree, renamed into its
 * quarantine; then one fresh look at /proc; then, item by item, the last proof (rule 21: src/safety/removal/last-proof.ts) on the tree
 * about to go, and the removal: the remover for a tree, `git worktree remove` for a worktree (the
 * proof is taken where the worktree is, just before git starts), the checkpoint of a SQLite log
 * (its own last proof, taken with it: src/safety/wal/checkpoint.ts). A proof or a re-check that fails
 * puts a renamed folder back and ends the item `refused` (or `unfinished`) with the reason of that
 * check; only an action that broke is `failed`, logged with its error, and the rest go on. Nothing
 * is half removed but in its quarantine, which the next pass finishes. Answers what became of each
 * item; the plan's items are left as they were.
 */
export async function executePlan(
  plan: readonly PlannedDeletion[],
  options: ExecuteOptions,
): Promise<ExecutedDeletion[]> {
  const ordered = [...plan].sort((a, b) => rank(a) - rank(b));
  const touched: ExecutedDeletion[] = [];
  const cost: ProofCost = { items: 0, entries: 0, ms: 0 };
  const settled = (done: ExecutedDeletion): ExecutedDeletion => {
    options.progress?.settled(done.outcome);
    return done;
  };
  for (const round of roundsOf(ordered)) {
    const staging = await mapLimit(round.entries, round.atOnce, async (entry) => {
      try {
        return await stage(entry, options);
      } catch (err) {
        touched.push(settled(outcomeOf(entry.item, err, 'left alone', options.log)));
        return null;
      }
    });
    const staged = staging.filter((entry): entry is Staged => entry !== null);
    const processes = staged.length > 0 ? (options.rescanProcesses?.() ?? null) : null;
    const finishing = (entry: Staged) => finish(entry, processes, options, cost).then(settled);
    touched.push(...(await mapLimit(staged, round.atOnce, finishing)));
  }
  if (cost.items > 0)
    options.log.info(
      { items: cost.items, entries: cost.entries, ms: Math.round(cost.ms * 10) / 10 },
      'last proofs taken',
    );
  return touched;
}

/** A batch of items staged together and proven against one look at /proc, and how many go at once. */
interface Round {
  entries: PlannedDeletion[];
  atOnce: number;
}

/**
 * Quarantines, trees and single files first, one after another (the remover keeps this process
 * busy); then the worktrees, a few at a time (git does the work, beside this process); then each
 * item a provider guards (under Kilo's lock, say) in a round of its own, with a look at /proc of
 * its own, so that a lock is held only while its own item goes.
 */
function roundsOf(ordered: readonly PlannedDeletion[]): Round[] {
  const removal = (entry: PlannedDeletion): Removal => entry.candidate.removal ?? { type: 'tree' };
  const here = ordered.filter((entry) => removal(entry).type !== 'git-worktree');
  return [
    { entries: here.filter((entry) => !removal(entry).guard), atOnce: 1 },
    { entries: ordered.filter((entry) => removal(entry).type === 'git-worktree'), atOnce: GIT_CONCURRENCY },
    ...here.filter((entry) => removal(entry).guard).map((entry) => ({ entries: [entry], atOnce: 1 })),
  ];
}

function rank(entry: PlannedDeletion): number {
  return entry.candidate.kind === 'quarantine' ? 0 : 1;
}

/**
 * Who deletes the item is settled first (a worktree whose owner could not remove it stops here);
 * the provider's guard proves its case again; the folder must be the very one judged, unchanged
 * since the pass began collecting evidence; a tree is then renamed into quarantine, by whoever may
 * remove it from its folder.
 */
async function stage(entry: PlannedDeletion, options: ExecuteOptions): Promise<Staged> {
  const { candidate, facts } = entry;
  if (candidate.path === null) throw new Error('an item without a folder cannot be deleted');
  const target = candidate.path;
  const removal: Removal = candidate.removal ?? { type: 'tree' };
  const { owner, remover } = identitiesOf(entry, removal);
  // One of git's temporary files goes only as a single file, a single file only once inspected, and
  // a checkpoint is run on a SQLite log alone (the one write into an owner's database, rule 10).
  if (
    (candidate.kind === 'git-garbage' && removal.type !== 'file') ||
    (onOneFile(removal) && !facts) ||
    (candidate.kind === 'wal-checkpoint') !== (removal.type === 'checkpoint')
  )
    throw new Error(`a ${candidate.kind} item cannot be removed as a ${removal.type}`);
  const hold =
    (await removal.guard?.recheck({ owner, log: options.log, lookAtProcesses: options.lookAtProcesses })) ?? null;
  try {
    const renames = removal.type === 'tree' && candidate.kind !== 'quarantine';
    if (facts) assertUnchanged(target, facts, renames ? options.evidenceSinceMs : null, onOneFile(removal));
    if (!renames) return { ...entry, owner, remover, removal, doomed: target, renamed: false, hold };
    hold?.assert?.();
    const doomed = asOwner(remover, () => moveToQuarantine(target));
    return { ...entry, owner, remover, removal, doomed, renamed: true, hold };
  } catch (err) {
    await hold?.release?.();
    throw err;
  }
}

/**
 * Whom an item is deleted as (rule 20), before anything is touched. A worktree: whom its status
 * runs as (src/safety/owner.ts gitIdentityFor), since `git worktree remove` runs a status too, and
 * with it the clean filters the repository's config names; refused (`foreign-owner`) where that
 * owner could not take the worktree or its admin entry out of their folders, as git would stop
 * halfway. A tree: its own owner empties it, and whoever may remove it from its folder (root, for
 * a user's tree in root's folder) renames it and removes the emptied top; one whose remover is
 * neither its owner nor root is refused.
 */
function identitiesOf(entry: PlannedDeletion, removal: Removal): { owner: Owner | null; remover: Owner | null } {
  const { candidate, facts } = entry;
  const where = candidate.path as string;
  const refuse = (why: string) =>
    new RemovalStopped(
      'refused',
      'foreign-owner',
      `${where} cannot be deleted as one owner, so nothing in it is touched: ${why}`,
    );
  if (removal.type === 'git-worktree') {
    const git = gitIdentityFor(removal.worktree, candidate.homeOwner);
    const blocked = worktreeRemovalBlocked(removal.worktree, removal.adminDir, git);
    if (blocked) throw refuse(blocked);
    return { owner: git, remover: git };
  }
  if (!facts) return { owner: null, remover: null };
  const owner = itemIdentity({ uid: facts.path.uid, gid: facts.path.gid });
  // A checkpoint takes nothing out of its folder: it runs as the owner of the log, and no one else.
  if (removal.type === 'checkpoint') return { owner, remover: owner };
  // The folder it sits in as it is now: the rename is about to happen there.
  const parent = lstatOrNullSync(path.dirname(where)) ?? {
    uid: facts.path.parentUid,
    gid: facts.path.parentGid,
    mode: facts.path.parentMode,
  };
  const remover = deleteIdentity(parent, { uid: facts.path.uid, gid: facts.path.gid });
  if (remover && remover.uid !== owner?.uid)
    throw refuse(`it belongs to uid ${facts.path.uid}, but only uid ${remover.uid} may remove it from its folder`);
  return { owner, remover };
}

/** The last proof, then the removal; whatever happens, the guard lets go at the end. */
async function finish(
  entry: Staged,
  processes: ProcessTable | null,
  options: ExecuteOptions,
  cost: ProofCost,
): Promise<ExecutedDeletion> {
  const { item } = entry;
  try {
    try {
      const started = performance.now();
      for (const subject of subjectsOf(entry, options)) {
        const proof = takeLastProof(subject, options.evidenceSinceMs, processes);
        cost.entries += proof.entries;
        if (proof.stop) throw new RemovalStopped('refused', proof.stop.reason, proof.stop.detail);
      }
      cost.ms += performance.now() - started;
      cost.items += 1;
      entry.hold?.assert?.();
    } catch (err) {
      return outcomeOf(item, err, putBack(entry), options.log);
    }
    try {
      const { notes, checkpoint } = await remove(entry, processes, options);
      const detail = notes.length > 0 ? `${item.detail}; ${notes.join('; ')}` : item.detail;
      const deleted: ReportItem = { ...item, verdict: 'deleted', detail, ...(checkpoint ? { checkpoint } : {}) };
      await options.onDeleted(deleted);
      options.log[options.itemLogLevel ?? 'info'](
        {
          provider: item.provider,
          kind: item.kind,
          path: item.path,
          bytes: item.bytes,
          reason: item.reason,
          ...(checkpoint ? { checkpoint } : {}),
        },
        checkpoint ? 'checkpointed' : 'deleted',
      );
      return { planned: item, outcome: deleted };
    } catch (err) {
      const where =
        entry.renamed || entry.candidate.kind === 'quarantine'
          ? `left in quarantine at ${entry.doomed}; the next pass finishes it`
          : 'left alone';
      return outcomeOf(item, err, where, options.log);
    }
  } finally {
    await entry.hold?.release?.();
  }
}

/** The trees an item's removal takes away: the tree itself (or the single file), and a worktree's admin entry. */
function subjectsOf(entry: Staged, options: ExecuteOptions): ProofSubject[] {
  // A checkpoint's last proof is its own, taken with it (src/safety/wal/checkpoint.ts): a log is
  // proven by what SQLite and its writers change, which this tool's own reads of a database do not.
  if (entry.removal.type === 'checkpoint') return [];
  const ownerUid = entry.facts?.path.uid ?? null;
  const own: ProofSubject = {
    tree: entry.doomed,
    judgedAt: entry.candidate.path as string,
    renamed: entry.renamed,
    ownerUid,
    earlier: entry.inodes ?? null,
  };
  if (entry.removal.type === 'file')
    return [
      {
        ...own,
        ...(entry.removal.repository ? { repository: entry.removal.repository } : {}),
        ...(options.minAgeMs === undefined ? {} : { writtenBeforeMs: Date.now() - options.minAgeMs }),
      },
    ];
  if (entry.removal.type !== 'git-worktree') return [own];
  const { adminDir } = entry.removal;
  return [own, { tree: adminDir, judgedAt: adminDir, renamed: false, ownerUid }];
}

/**
 * Removes the staged item as its owner (or checkpoints its log); answers the notes the report's
 * detail takes with it, and what a checkpoint did to the sizes of the log and its database.
 */
async function remove(
  entry: Staged,
  processes: ProcessTable | null,
  options: ExecuteOptions,
): Promise<{ notes: string[]; checkpoint?: CheckpointSizes }> {
  const { removal } = entry;
  const notes: string[] = [];
  let checkpoint: CheckpointSizes | undefined;
  if (removal.type === 'checkpoint') {
    checkpoint = checkpointWal({
      database: removal.database,
      planned: removal.planned,
      shmAged: removal.shmAged,
      minAgeMs: options.minAgeMs ?? 0,
      owner: entry.owner,
      processes: processes ?? visibleLook(options),
    });
    notes.push(
      `checkpointed: the log went from ${formatBytes(checkpoint.walBefore)} to ${formatBytes(checkpoint.walAfter)}, the database from ${formatBytes(checkpoint.databaseBefore)} to ${formatBytes(checkpoint.databaseAfter)}`,
    );
  } else if (removal.type === 'git-worktree') {
    // A stale lock its tool left is unlocked here, right after the last proof, and put back should git refuse.
    await removeWorktreeWithGit(removal.worktree, removal.ownerRepo, entry.owner, removal.unlock);
    for (const extra of removal.alsoRemove ?? []) {
      const note = removeAlso(extra, entry, processes, options);
      if (note) notes.push(note);
    }
  } else if (removal.type === 'file') {
    const { facts, candidate } = entry;
    if (!facts) throw new Error(`${entry.doomed} was not inspected, so it cannot be proven the file judged`);
    const root = candidate.root ?? path.dirname(entry.doomed);
    const expected = { dev: facts.path.dev, ino: facts.path.ino, sinceMs: options.evidenceSinceMs };
    unlinkProvenFile(root, entry.doomed, expected, entry.remover);
  } else removeTreeAs(entry.doomed, entry.owner, entry.remover);
  const note = await entry.hold?.afterRemoval?.();
  if (note) notes.push(note);
  return checkpoint ? { notes, checkpoint } : { notes };
}

/**
 * A checkpoint looks at the processes whatever processCheck says (no process may hold a database
 * it writes, rule 10), where they can be seen; where they cannot and processCheck is off, SQLite's
 * own locks are all there is, and a busy checkpoint is refused by them.
 */
function visibleLook(options: ExecuteOptions): ProcessTable | null {
  const look = options.lookAtProcesses();
  return look.visible ? look : null;
}

/**
 * Removes a tree as its owner (rule 20): the owner empties it; its remover, where that is root
 * (a user's tree in root's folder), then removes the emptied top from root's folder. identitiesOf
 * refuses any other remover before anything is touched.
 */
function removeTreeAs(doomed: string, owner: Owner | null, remover: Owner | null): void {
  if (remover?.uid === owner?.uid) {
    asOwner(owner, () => removeTree(doomed));
    return;
  }
  if (remover) throw new Error(`${doomed} is removed from its folder by uid ${remover.uid}, not by its owner`);
  removeTree(doomed, (empty) => asOwner(owner, empty));
}

/**
 * A folder of the owner's that goes once git removed its worktree (Owl's worktree-config/<id>/):
 * renamed, proven like any tree, removed. Kept where the proof fails: a later pass finds it as a
 * leftover. Answers a note when it is kept.
 */
function removeAlso(
  extra: string,
  entry: Staged,
  processes: ProcessTable | null,
  options: ExecuteOptions,
): string | undefined {
  if (!lstatOrNullSync(extra)) return undefined;
  const doomed = asOwner(entry.owner, () => moveToQuarantine(extra));
  const proof = takeLastProof(
    { tree: doomed, judgedAt: extra, renamed: true, ownerUid: entry.facts?.path.uid ?? null },
    options.evidenceSinceMs,
    processes,
  );
  if (!proof.stop) {
    asOwner(entry.owner, () => removeTree(doomed));
    return undefined;
  }
  const where = putBackFrom(doomed, extra, entry.owner);
  options.log.warn(
    { path: extra, reason: proof.stop.reason, detail: proof.stop.detail },
    'kept with its worktree gone',
  );
  return `${extra} was kept (${proof.stop.reason}: ${proof.stop.detail}; ${where})`;
}

/** A proof or re-check failed before anything was removed: a renamed folder goes back where it was. */
function putBack(entry: Staged): string {
  if (!entry.renamed) return entry.candidate.kind === 'quarantine' ? 'left in quarantine' : 'left alone';
  return putBackFrom(entry.doomed, entry.candidate.path as string, entry.remover);
}

function putBackFrom(doomed: string, judgedAt: string, owner: Owner | null): string {
  try {
    if (lstatOrNullSync(judgedAt)) throw new Error(`${judgedAt} exists again`);
    asOwner(owner, () => renameSync(doomed, judgedAt));
    return 'put back where it was';
  } catch (err) {
    return `left in quarantine at ${doomed} (${errorMessage(err)}); the next pass judges it again`;
  }
}

/**
 * The outcome of an item an error ended: a stop (a re-check, the last proof, git's refusal, the
 * remover finding a swapped folder or a mount) is the verdict of that check; anything else broke.
 */
function outcomeOf(item: ReportItem, err: unknown, where: string, log: Logger): ExecutedDeletion {
  const stop = asStop(err);
  if (stop)
    return {
      planned: item,
      outcome: { ...item, verdict: stop.verdict, reason: stop.reason, detail: `${stop.message}; ${where}` },
    };
  log.warn({ err, provider: item.provider, path: item.path }, 'deletion failed');
  const detail = `deletion failed: ${errorMessage(err)} (was: ${item.detail}); ${where}`;
  return { planned: item, outcome: { ...item, verdict: 'failed', reason: 'delete-failed', detail } };
}

function asStop(err: unknown): RemovalStopped | null {
  if (err instanceof RemovalStopped) return err;
  if (err instanceof TreeSwappedError) return new RemovalStopped('refused', 'changed-during-inspection', err.message);
  if (err instanceof MountInsideError) return new RemovalStopped('refused', 'mount-inside', err.message);
  return null;
}

/**
 * The folder (or single file) judged must be the one deleted: a swap (for a link, say) after the
 * plan stops it. Before a rename, its own ctime is proven too (`sinceMs`): the rename is about to
 * change it.
 */
function assertUnchanged(target: string, facts: InspectedFacts, sinceMs: number | null, isFile: boolean): void {
  const changed = (detail: string) => new RemovalStopped('refused', 'changed-during-inspection', detail);
  const now = lstatOrNullSync(target);
  if (!now) throw changed(`${target} disappeared after it was judged`);
  if ((isFile ? !now.isFile() : !now.isDirectory()) || now.ino !== facts.path.ino || now.dev !== facts.path.dev)
    throw changed(
      `${target} was replaced after it was judged (now ${now.isSymbolicLink() ? 'a symlink' : 'another entry'})`,
    );
  if (sinceMs !== null && changedSince(now.ctimeMs, sinceMs))
    throw changed(
      `${target} changed at ${new Date(now.ctimeMs).toISOString()} (ctime), after the pass began collecting its evidence at ${new Date(sinceMs).toISOString()}`,
    );
}
