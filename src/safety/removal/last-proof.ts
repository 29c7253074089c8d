import { errorCode, errorMessage } from '../../model/errors.js';
import { bindMountsOf } from '../processes/bind-sources.js';
import { CwdCursor, TreeSwappedError, type FolderIdentity } from '../fs/cwd-cursor.js';
import { lstatSync, realpathSync } from '../fs/stat.js';
import { readdirNamesSync } from '../fs/list.js';
import type { Stats } from '../fs/stat.js';
import { pidsInside, union } from '../processes/processes.js';
import { gitProcessesInside } from '../processes/git-processes.js';
import { foreignBecause } from '../owners/ownership.js';
import type { ProcessTable } from '../processes/processes.js';
import { changedSince } from '../since.js';
import { pidsHoldingAny, type TreeInodes } from '../walk/walk-watch.js';

/** One tree the last proof walks: where it is now, and what the plan knew of it. */
export interface ProofSubject {
  /** Where the tree is now: its quarantine, or where it was judged when nothing renamed it. */
  tree: string;
  /** Where it was judged: a process may still name it by that path. */
  judgedAt: string;
  /**
   * Whether the executor renamed its top folder into quarantine. The rename changes that folder's
   * ctime (and nothing else), so that ctime was checked just before it, and the folder's mtime
   * (which a rename in the same folder leaves alone) stands for it after.
   */
  renamed: boolean;
  /** The uid of the item's top folder when it was judged (null: its top's now): every entry must be that owner's. */
  ownerUid: number | null;
  /** Inodes an earlier walk saw in it: one more reason to keep it, never a reason to go ahead. */
  earlier?: TreeInodes | null;
  /** A single file's repository: a git process at work there (a gc, a repack) keeps the file. */
  repository?: string;
  /** Its newest write (mtime) must be older than this moment (ms): minAge, looked at once more. */
  writtenBeforeMs?: number;
}

interface ProofStop {
  reason: 'changed-during-inspection' | 'in-use' | 'foreign-owner' | 'unreadable' | 'liveness-unknown' | 'too-recent';
  detail: string;
}

export interface ProofResult {
  stop: ProofStop | null;
  /** Entries looked at, the top included. */
  entries: number;
}

/**
 * The last proof (rule 21), taken by the executor on the tree about to go, after its quarantine
 * rename and before the first unlink: the whole tree is walked once more, and it must be kept when
 * any entry changed (ctime) after the pass began collecting evidence (`sinceMs`), belongs to
 * another uid or is closed to its owner, is a mount point, or is held by a process of `processes`
 * (a fresh scan of /proc: by identity, and by path, the old one included). No walk made earlier
 * decides it: a user can set an mtime back, never a ctime, and a cache or the walk ahead may be
 * minutes old. Stops at the first reason found. Synchronous, like the remover that follows it.
 */
export function takeLastProof(subject: ProofSubject, sinceMs: number, processes: ProcessTable | null): ProofResult {
  // A fresh look at /proc that sees no process proves nothing of one (rule 19).
  if (processes && !processes.visible)
    return {
      entries: 0,
      stop: {
        reason: 'liveness-unknown',
        detail: `processes could not be seen at the last look: ${processes.why ?? 'unknown'}`,
      },
    };
  const walked = walkForProof(subject, sinceMs, processes);
  if (walked.stop || !processes) return walked;
  const pids = union(
    union(pidsInside(processes, subject.tree), pidsInside(processes, subject.judgedAt)),
    subject.earlier ? pidsHoldingAny(processes.identities, subject.earlier) : [],
  );
  if (pids.length > 0)
    return {
      ...walked,
      stop: {
        reason: 'in-use',
        detail: `process ${pids.slice(0, 5).join(', ')} got inside after it was judged (working directory, root, an open file or a mapping)`,
      },
    };
  const mounts = bindMountsOf(processes.mounts, canonical(subject.tree));
  if (mounts.length > 0)
    return { ...walked, stop: { reason: 'in-use', detail: `since it was judged, ${mounts.slice(0, 3).join('; ')}` } };
  // A single file's repository, or the tree itself: a git at work there holds nothing between its steps.
  const area = subject.repository ?? subject.tree;
  const git = gitProcessesInside(processes.gitProcesses, area, { unresolvedCount: subject.repository !== undefined });
  if (git.length > 0)
    return {
      ...walked,
      stop: {
        reason: 'in-use',
        detail: `git process ${git.slice(0, 5).join(', ')} got to work in ${subject.repository ? `the repository ${subject.repository}` : subject.judgedAt} after it was judged`,
      },
    };
  return walked;
}

type Pending = Array<[name: string, identity: FolderIdentity]>;

function walkForProof(subject: ProofSubject, sinceMs: number, processes: ProcessTable | null): ProofResult {
  const result: ProofResult = { stop: null, entries: 0 };
  let top: Stats;
  try {
    top = lstatSync(subject.tree);
  } catch (err) {
    return { ...result, stop: failed(subject.tree, err) };
  }
  const look = lookAt(subject.renamed, subject.ownerUid ?? top.uid, sinceMs, processes);
  if (subject.writtenBeforeMs !== undefined && top.mtimeMs >= subject.writtenBeforeMs) {
    result.entries += 1;
    result.stop = {
      reason: 'too-recent',
      detail: `${subject.judgedAt} was written at ${new Date(top.mtimeMs).toISOString()}, younger than minAge at the last look before the delete`,
    };
    return result;
  }
  // Entries are named where the item was judged, not by its quarantine's name.
  const shown = (where: string): string => subject.judgedAt + where.slice(subject.tree.length);
  result.entries += 1;
  result.stop = look(top, subject.judgedAt, true);
  if (result.stop || !top.isDirectory()) return result;
  const cursor = new CwdCursor(subject.tree);
  try {
    cursor.open(top);
    const frames: Pending[] = [];
    const scan = (): ProofStop | null => {
      const folders: Pending = [];
      frames.push(folders);
      for (const name of readdirNamesSync('.')) {
        let stats: Stats;
        try {
          stats = lstatSync(name);
        } catch (err) {
          return failed(shown(cursor.describe(name)), err);
        }
        result.entries += 1;
        const stop = look(stats, shown(cursor.describe(name)), false, top.dev);
        if (stop) return stop;
        if (stats.isDirectory()) folders.push([name, { dev: stats.dev, ino: stats.ino }]);
      }
      return null;
    };
    result.stop = scan();
    while (!result.stop && frames.length > 0) {
      const next = (frames[frames.length - 1] as Pending).pop();
      if (!next) {
        frames.pop();
        if (frames.length > 0) cursor.leave();
        continue;
      }
      cursor.enter(next[0], next[1]);
      result.stop = scan();
    }
  } catch (err) {
    result.stop = failed(shown(cursor.describe()), err);
  } finally {
    cursor.close();
  }
  return result;
}

/** The checks of one entry: changed since, owner, mount point, holder; the first that fails. */
function lookAt(renamed: boolean, ownerUid: number, sinceMs: number, processes: ProcessTable | null) {
  const since = new Date(sinceMs).toISOString();
  return (stats: Stats, where: string, isTop: boolean, topDev?: number): ProofStop | null => {
    const renamedTop = isTop && renamed;
    const stamp = renamedTop ? stats.mtimeMs : stats.ctimeMs;
    if (changedSince(stamp, sinceMs))
      return {
        reason: 'changed-during-inspection',
        detail: `${where} changed at ${new Date(stamp).toISOString()} (${renamedTop ? 'mtime' : 'ctime'}), after the pass began collecting its evidence at ${since}`,
      };
    const foreign = foreignBecause(ownerUid, stats);
    if (foreign) return { reason: 'foreign-owner', detail: `${where} ${foreign}` };
    if (topDev !== undefined && stats.isDirectory() && stats.dev !== topDev)
      return { reason: 'in-use', detail: `a file system was mounted at ${where} after it was judged` };
    const holders = processes?.identities.holdersOf(stats.dev, stats.ino);
    if (holders)
      return {
        reason: 'in-use',
        detail: `process ${holders.slice(0, 5).join(', ')} got inside after it was judged: it holds ${where} (working directory, root, an open file or a mapping)`,
      };
    return null;
  };
}

/** An entry that vanished or was swapped during the proof is a change; any other error, an unreadable tree. */
function failed(where: string, err: unknown): ProofStop {
  if (err instanceof TreeSwappedError || errorCode(err) === 'ENOENT')
    return {
      reason: 'changed-during-inspection',
      detail: `${where} changed during the last look before the delete: ${errorMessage(err)}`,
    };
  return {
    reason: 'unreadable',
    detail: `the last look before the delete could not read ${where}: ${errorMessage(err)}`,
  };
}

function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
