import type { Logger } from 'pino';
import type { ProcessTable } from '../safety/processes/processes.js';
import type { ItemKind, OwnerJudgement, ProviderName } from '../model/types.js';
import type { SeenFile } from '../safety/wal/pair.js';

/**
 * How an item proven dead is removed. The executor carries out every kind, and takes the last
 * proof (rule 21) before each; providers only describe, and may prove their own case again.
 * - `tree`: quarantine rename in the same folder, the last proof, then a delete that never follows
 *   a link.
 * - `git-worktree`: the last proof on the worktree and its admin entry where they are, then
 *   `git worktree remove` in the owner repository (never `--force`); `alsoRemove` folders go
 *   afterwards, each as a tree. With `unlock` (a lock its tool left naming a process that is gone),
 *   `git worktree unlock` right after the last proof, while the lock still holds exactly `bytes`,
 *   and the `locked` file put back byte for byte where the removal does not happen.
 * - `file`: one regular file (one of git's temporary files, a log or output past its owner's
 *   retention), unlinked where it is without a quarantine, right after the last proof on it; for
 *   one of git's, no git process may be at work in its `repository` meanwhile.
 * - `checkpoint`: nothing is removed; the item is a SQLite database's write-ahead log (its path),
 *   reclaimed by `PRAGMA wal_checkpoint(TRUNCATE)` on `database`, as the owner, right after the
 *   log's last proof (src/safety/wal/checkpoint.ts). `planned` is the log and the database as the
 *   plan saw them; `shmAged` says whether the shared memory's newest write counts for minAge (not
 *   where this tool itself reads the database at every pass, which rewrites it).
 */
export type Removal =
  | { type: 'tree'; guard?: RemovalGuard }
  | { type: 'file'; repository?: string; guard?: RemovalGuard }
  | {
      type: 'checkpoint';
      database: string;
      planned: { wal: SeenFile; database: SeenFile };
      shmAged: boolean;
      guard?: RemovalGuard;
    }
  | {
      type: 'git-worktree';
      worktree: string;
      ownerRepo: string;
      adminDir: string;
      guard: RemovalGuard;
      alsoRemove?: string[];
      unlock?: StaleLock;
    };

/** Whether a removal acts on one regular file where it is (a `file`, a `checkpoint`), not on a folder. */
export const onOneFile = (removal: Removal | undefined): boolean =>
  removal?.type === 'file' || removal?.type === 'checkpoint';

/** A worktree's `locked` file proven stale, with the exact bytes it was judged on. */
export interface StaleLock {
  lockedFile: string;
  bytes: Uint8Array;
}

/** A provider's own proof, taken again right before its item goes. */
export interface RemovalGuard {
  /**
   * Proves again what the plan proved (under the owner's lock, where it has one). Throws a
   * RemovalStopped (src/model/errors.ts) where that no longer holds. What it answers is kept until
   * the item is gone or put back.
   */
  recheck(ctx: GuardContext): Promise<GuardHold | undefined>;
}

export interface GuardContext {
  /** The uid/gid the delete runs as (the owner when running as root), or null for "as we are". */
  owner: { uid: number; gid: number } | null;
  log: Logger;
  /** A fresh look at /proc, for a proof that reads the processes again (never /proc itself). */
  lookAtProcesses(): ProcessTable;
}

/** What a guard holds while its item goes: a lock, and the steps that come with it. */
export interface GuardHold {
  /** Throws unless the guard's proof still holds; called just before each step that cannot be undone. */
  assert?(): void;
  /** Once the item is gone (Kilo drops the pin of the repository); may answer a note for the report. */
  afterRemoval?(): Promise<string | undefined>;
  /** Whatever became of the item, at the end (Kilo releases its lock). */
  release?(): Promise<void>;
}

export interface Candidate {
  provider: ProviderName;
  kind: ItemKind;
  /** Absolute path of the folder, or null for a `job` finding without a folder. */
  path: string | null;
  /** The provider root the path must be contained in (canonical containment, no symlink between). */
  root: string | null;
  judgement: OwnerJudgement;
  removal?: Removal;
  /**
   * Extra paths whose newest write also counts for `minAge` (an admin folder beside a worktree).
   */
  alsoWatch?: string[];
  /**
   * Aged by the newest write of its files, not of its folders, while its owner's decision is
   * `kept`: a repository only ever reported, in which the pass itself unlinks git's temporary
   * files, which moves the mtime of their folder without any write of the owner's.
   */
  agedByFiles?: boolean;
  /**
   * The owner of the home (or the location outside every home) the item was found in, as the
   * resolver of locations answered it (src/safety/owners/locations.ts): the item's top folder must be
   * this owner's or root's, and the item is judged, deleted and git-run as this owner (rule 20).
   */
  homeOwner?: { uid: number; gid: number };
}
