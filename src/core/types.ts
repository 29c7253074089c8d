import type { ProcessDescription } from '../safety/processes/process-description.js';
import type { ProcessTable } from '../safety/processes/processes.js';
import type { Logger } from 'pino';
import type { EffectiveConfig } from '../config/schema.js';
import type { TreeFacts } from '../safety/walk/walk.js';
import type * as z from 'zod';
import type { Anchor, BuiltInSet, ClaimedFolder, SetContext } from './contributions.js';
import type { ClaimedArea } from './overlaps.js';
import type { Reason, ReasonTable } from './reasons.js';
import type { SandboxBuilder } from './sandbox.js';

/** A provider's name, as the config's `providers` section and `--only` spell it (src/providers/registry.ts). */
export type ProviderName = string;

/**
 * `task-folder`: an extension's per-task conversation folder, reported (never deleted) when no history names it.
 * `task-output`: Claude Code's background task output (a session folder under `claude-<uid>`).
 * `git-garbage`: one of git's temporary files inside a live checkpoint repository (src/engines/git-garbage/).
 * `staging`: Codex's marketplace staging and backup clones (and its plugin clones).
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
  | 'staging';

export type Verdict = 'deleted' | 'would-delete' | 'kept' | 'refused' | 'unfinished' | 'failed';
export const VERDICTS: readonly Verdict[] = ['deleted', 'would-delete', 'kept', 'refused', 'unfinished', 'failed'];

/**
 * What the owner's source of truth says of a candidate, before any safety check.
 * `delete` means "proven dead by the owner's record"; the safety engine may still refuse it.
 */
export type OwnerJudgement =
  | { decision: 'delete'; reason: Reason; detail: string }
  | { decision: 'kept' | 'unfinished' | 'refused'; reason: Reason; detail: string };

/**
 * How an item proven dead is removed. The executor carries out every kind, and takes the last
 * proof (rule 21) before each; providers only describe, and may prove their own case again.
 * - `tree`: quarantine rename in the same folder, the last proof, then a delete that never follows
 *   a link.
 * - `git-worktree`: the last proof on the worktree and its admin entry where they are, then
 *   `git worktree remove` in the owner repository (never `--force`); `alsoRemove` folders go
 *   afterwards, each as a tree.
 * - `file`: one regular file (kind `git-garbage` only), unlinked where it is without a quarantine,
 *   right after the last proof on it; no git process may be at work in `repository` meanwhile.
 */
export type Removal =
  | { type: 'tree'; guard?: RemovalGuard }
  | { type: 'file'; repository: string; guard?: RemovalGuard }
  | {
      type: 'git-worktree';
      worktree: string;
      ownerRepo: string;
      adminDir: string;
      guard: RemovalGuard;
      alsoRemove?: string[];
    };

/** A provider's own proof, taken again right before its item goes. */
interface RemovalGuard {
  /**
   * Proves again what the plan proved (under the owner's lock, where it has one). Throws a
   * RemovalStopped (src/core/errors.ts) where that no longer holds. What it answers is kept until
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

export interface RootStatus {
  provider: ProviderName;
  root: string;
  ok: boolean;
  error?: string;
  /** Something a person should know though nothing failed (a home that does not exist); also logged as a warning. */
  warning?: string;
}

export interface Gathering {
  roots: RootStatus[];
  candidates: Candidate[];
}

export interface GatherContext {
  config: EffectiveConfig;
  /** Homes after glob expansion. */
  homes: string[];
  now: Date;
  log: Logger;
  /** The environment of this process (XDG variables apply to the current user's own home). */
  env: NodeJS.ProcessEnv;
  /** One walk of a folder (size, newest write), shared with the safety engine for this pass. */
  measure: (root: string) => TreeFacts;
  /** Names the trees the provider will measure next, in order, to be walked ahead beside it. */
  measureAhead?: (roots: readonly string[]) => void;
  /** Resolves once measuring these will not take them from the walk ahead: await it before `measure`. */
  whenMeasured?: (roots: readonly string[]) => Promise<void>;
  /** Every registered provider, enabled or not: what each tells the others (src/core/contributions.ts). */
  registry: readonly Provider[];
  /**
   * The pass's one look at /proc (src/safety/processes/processes.ts): what providers read of their
   * tools' processes, their environments included (rule 27). A provider never reads /proc itself.
   */
  processes: ProcessTable;
  /**
   * The pids with anything inside a folder, by path and by identity (the folder is walked once, for
   * the pass); null where processes cannot be seen.
   */
  holdersOf(dir: string): number[] | null;
}

/** What a provider is told when asked which folders it judges, before a pass (no process is looked at). */
export type ClaimContext = Omit<GatherContext, 'processes' | 'holdersOf'>;

/** What the config loader hands a provider that completes its own section (the worktrees provider's sets). */
export interface ConfigureContext extends SetContext {
  /** The config file, or `built-in defaults`, as errors name it. */
  where: string;
}

/** What a pass asks of a provider: its candidates, and what it tells the other providers. */
export interface Provider {
  name: ProviderName;
  gather(ctx: GatherContext): Promise<Gathering>;
  /** Completes its section once the whole file is read; throws a ConfigError naming `ctx.where`. */
  configure?(ctx: ConfigureContext): { enabled: boolean };
  /** The folders whose contents it judges, as the config names them: no worktree set may root there. */
  claimedFolders?(ctx: SetContext): ClaimedFolder[];
  /** Places of its tool a worktree set's root may start at (`{name}`). */
  anchors?: readonly Anchor[];
  /** Its tool's worktrees, as sets of roots the worktrees provider judges. */
  worktreeSets?: readonly BuiltInSet[];
  /** Names of folders in a folder of worktrees that are its to judge (Kilo's `.kilo-delete-<uuid>`). */
  claimedNames?: readonly RegExp[];
  /**
   * The folders whose contents this provider judges, so a config in which two providers (or two
   * worktree sets) would judge the same folders is refused before a pass starts.
   */
  claimedAreas?(ctx: ClaimContext): Promise<ClaimedArea[]>;
  /** Whether its locations come from `homes` (absent: yes); a section that names them outright does not. */
  usesHomes?(config: EffectiveConfig): boolean;
  /**
   * The variables its tool names its state with (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`): the one look
   * at /proc keeps them from every process's environment (rule 27).
   */
  processVariables?: readonly string[];
}

/**
 * One tool's module: everything of it is in `src/providers/<name>/`, and a line of
 * src/providers/registry.ts registers it. The config's `providers` section, the reason table, the
 * demo and `--only` are built from the registry.
 */
export interface ProviderModule extends Provider {
  /** Its section of the config file, `providers.<name>`, with its defaults; `enabled` is always there. */
  section: z.ZodType<{ enabled: boolean }>;
  /** Every reason code its items can carry besides the safety engine's, with the verdicts each comes with. */
  reasons: ReasonTable;
  /** Lays out its tool's real state in the demo's sandbox. */
  sandbox: SandboxBuilder;
}

/** The safety facts of one candidate's folder, gathered by the safety engine. */
export interface SafetyFacts {
  exists: boolean;
  isRealDirectory: boolean;
  contained: boolean;
  symlinkInPath: boolean;
  sameFilesystemAsParent: boolean;
  mountInside: boolean;
  bytes: number;
  /** Newest mtime (ms) of the folder and anything inside it, or null when the folder is gone. */
  newestWriteMs: number | null;
  /** Newest write of anything but a folder (the age of a half-deleted quarantine). */
  newestFileWriteMs: number | null;
  /** Pids with a working directory, root, open file or mapping inside (by path or by identity). */
  processesInside: number[];
  /** The first few of them, described for the refusal's detail. */
  holders?: ProcessDescription[];
  /** A `file` removal's target is a regular file (lstat). */
  isRegularFile?: boolean;
  /** For a `file` removal: the git processes at work in its repository, the first few described. */
  gitInRepository?: { repository: string; pids: number[]; holders: ProcessDescription[] };
  /** Mount namespaces that have it, or a folder inside it, mounted elsewhere: one sentence each. */
  mountedElsewhere?: string[];
  /** Why the walk could not finish (EACCES somewhere), if it could not. */
  walkError?: string;
  /** An entry listed inside and gone before it could be looked at, on the walk and on its re-walk. */
  vanished?: string;
  /**
   * Why the item cannot be deleted as one owner (rule 20): an entry of another uid, or one its
   * owner cannot read or remove, or a top folder that is not the home owner's nor root's.
   */
  foreign?: string;
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
}

/** One provider's claim on a folder, with the verdict it alone would have given (at plan time). */
export interface Claim {
  provider: ProviderName;
  kind: ItemKind;
  path: string | null;
  verdict: Exclude<Verdict, 'deleted' | 'failed'>;
  reason: Reason;
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
  totals: Totals;
}
