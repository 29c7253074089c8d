// The vocabulary of a pass's report, shared by every layer: what an item is, the verdicts and
// reasons it can get, and the report itself. Imports nothing of the project.

/**
 * Reason codes, each with the verdicts it comes with. The safety engine's are here, for every
 * provider; each shared engine and each provider has its own table (its `reasons.ts`), and
 * src/providers/registry.ts merges them into the one table docs/reasons.md lists (a test compares
 * them), so a code cannot be added, renamed or dropped without its documentation.
 *
 * A code whose owner judgement is `delete` ends as `deleted` or `would-delete`; any of them may end
 * as `failed` with `delete-failed` instead, so that pair is not repeated on every row. A `kept`
 * code a provider's re-check can give just before the delete also comes as `refused` (rule 23).
 */
export type ReasonTable = Readonly<Record<string, readonly Verdict[]>>;

/** A reason code: kebab-case, stable, in the table of the provider or engine that gives it. */
export type Reason = string;

/** A provider's name, as the config's `providers` section and `--only` spell it (src/providers/registry.ts). */
export type ProviderName = string;

/**
 * `task-folder`: an extension's per-task conversation folder, reported (never deleted) when no history names it.
 * `task-output`: Claude Code's background task output (a session folder under `claude-<uid>`).
 * `git-garbage`: one of git's temporary files inside a live checkpoint repository (src/engines/git-garbage/).
 * `staging`: Codex's marketplace staging and backup clones (and its plugin clones).
 * `wal-checkpoint`: an owner's SQLite database whose write-ahead log a checkpoint reclaims, losslessly.
 * `superseded-log-db`: Codex's older numbered log database, once a newer one replaced it.
 * `owner-retention`: a file or folder its owner's own retention rule calls dead, which the owner failed to remove.
 */
export type ItemKind =
  | 'session-home'
  | 'checkpoint-repo'
  | 'worktree'
  | 'worktree-admin'
  | 'quarantine'
  | 'job'
  | 'task-folder'
  | 'task-output'
  | 'git-garbage'
  | 'staging'
  | 'wal-checkpoint'
  | 'superseded-log-db'
  | 'owner-retention';

export type Verdict = 'deleted' | 'would-delete' | 'kept' | 'refused' | 'unfinished' | 'failed';

export const VERDICTS: readonly Verdict[] = ['deleted', 'would-delete', 'kept', 'refused', 'unfinished', 'failed'];

/**
 * What the owner's source of truth says of a candidate, before any safety check.
 * `delete` means "proven dead by the owner's record"; the safety engine may still refuse it.
 */
export type OwnerJudgement =
  | { decision: 'delete'; reason: Reason; detail: string }
  | { decision: 'kept' | 'unfinished' | 'refused'; reason: Reason; detail: string };

export interface RootStatus {
  provider: ProviderName;
  root: string;
  ok: boolean;
  error?: string;
  /** Something a person should know though nothing failed (a home that does not exist); also logged as a warning. */
  warning?: string;
}

/**
 * Which test of rule 19 a blind pass failed, in the order they are made (the first failure is
 * named): /proc is no procfs, it cannot be listed, /proc/self is not the pass, the pass is in a PID
 * namespace of its own, the /proc mount is not in the pass's mountinfo, a mount option hides
 * processes (`hidepid`, `subset`), or a file system is mounted over a process's folder in /proc.
 */
export type BlindReason =
  | 'not-procfs'
  | 'proc-unreadable'
  | 'self-mismatch'
  | 'own-pid-namespace'
  | 'proc-mount-unknown'
  | 'hidepid'
  | 'subset'
  | 'proc-overmounted';

export interface Liveness {
  /** false where processes cannot be seen (rule 19); `blindBecause` then names the test that failed. */
  visible: boolean;
  inspected: number;
  uninspectable: number;
  blindBecause?: BlindReason;
  why?: string;
}

export interface ReportItem {
  provider: ProviderName;
  kind: ItemKind;
  path: string | null;
  bytes: number;
  verdict: Verdict;
  reason: Reason;
  detail: string;
  /** Present when several providers (or sets) claimed this folder or folders inside it (rule 16). */
  claimedBy?: Claim[];
  /** A `wal-checkpoint` item the pass checkpointed: the sizes of the log and its database, before and after. */
  checkpoint?: CheckpointSizes;
}

/** What a checkpoint did to the sizes of a database's files, in bytes. */
export interface CheckpointSizes {
  walBefore: number;
  /** 0 where the log was truncated, or removed by SQLite's own close. */
  walAfter: number;
  databaseBefore: number;
  databaseAfter: number;
}

/** One provider's claim on a folder, with the verdict it alone would have given (at plan time). */
export interface Claim {
  provider: ProviderName;
  kind: ItemKind;
  path: string | null;
  verdict: Exclude<Verdict, 'deleted' | 'failed'>;
  reason: Reason;
}

/**
 * What a byte of a tool's state is:
 * - `scratch`: an item of a kind a pass may delete, whatever its verdict;
 * - `transcripts`: conversation data (sessions, rollouts, chats);
 * - `logs`;
 * - `databases`: SQLite files and their `-wal` and `-shm` logs;
 * - `checkpoints`: checkpoint repositories and folders that no item covers;
 * - `worktrees`: folders of worktrees, less the worktrees that are items;
 * - `tool-output`: full outputs of tools' calls;
 * - `other`: every other byte of the tool's state.
 */
export type FootprintCategory =
  | 'scratch'
  | 'transcripts'
  | 'logs'
  | 'databases'
  | 'checkpoints'
  | 'worktrees'
  | 'tool-output'
  | 'other';

/** One provider's bytes of one category. */
export interface FootprintEntry {
  provider: ProviderName;
  category: FootprintCategory;
  /** Apparent sizes of the files and links (and any other entry that is not a folder). */
  bytes: number;
  /** How many of them there are. */
  files: number;
  /** The largest single file of the category; null when there is none (or it moved before it could be named). */
  largest: { path: string; bytes: number } | null;
  /**
   * The change since the footprint of the previous report.json (0 when unchanged); absent on the
   * first pass, or when the previous report cannot be read or has no footprint.
   */
  growthBytes?: number;
}

export interface Totals {
  reclaimedBytes: number;
  /** Bytes of the `would-delete` items: what a deleting pass would free now. */
  wouldReclaimBytes: number;
  deleted: number;
  wouldDelete: number;
  kept: number;
  refused: number;
  unfinished: number;
  failed: number;
}

export interface Report {
  schemaVersion: 1;
  tool: { name: 'agent-janitor'; version: string };
  mode: 'delete' | 'report-only';
  host: string;
  startedAt: string;
  finishedAt: string;
  processCheck: {
    mode: 'auto' | 'required' | 'off';
    inspected: number;
    uninspectable: number;
    visible: boolean;
    /** Present when `visible` is false. */
    blindBecause?: BlindReason;
  };
  providers: RootStatus[];
  items: ReportItem[];
  /** Where each tool's disk goes, by category (src/model/footprint.ts); absent when the config turns it off. */
  footprint?: FootprintEntry[];
  totals: Totals;
}
