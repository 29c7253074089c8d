import type { Logger } from 'pino';
import type * as z from 'zod';
import type { EffectiveConfig, SectionContext } from '../config/schema.js';
import type { LocationBasis } from '../safety/owners/location-basis.js';
import type { ProcessTable } from '../safety/processes/processes.js';
import type { TreeFacts } from '../safety/walk/walk.js';
import type { OwnerJudgement, ProviderName, ReasonTable, RootStatus } from '../model/types.js';
import type { Owner } from '../safety/owners/owner.js';
import type { Candidate } from './candidate.js';
import type { FootprintPlace } from './footprint.js';
import type { SandboxBuilder } from './sandbox.js';

// What a provider is, what a pass gives it, and what it tells the other providers.

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
  /** Every registered provider, enabled or not: what each tells the others (below). */
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
export type ConfigureContext = SectionContext<Provider>;

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
  /**
   * The settings of a worktree set as the config gives them (the worktrees provider answers), or
   * null while the set is off.
   */
  worktreeSetSettings?(config: EffectiveConfig, name: string): { idleAfter: string } | null;
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
  /**
   * Where its tool's state lives, by category, for each home or location it finds (its
   * `footprint.ts`): asked after the pass has judged its items, so the footprint can count the items
   * as `scratch` and every other byte by its place. `gathered` is the roots its gather answered in
   * this pass, for a provider whose folders take work to find (the worktree sets' roots). A
   * provider without it has only its items' bytes in the footprint.
   */
  footprint?(ctx: GatherContext, gathered: readonly RootStatus[]): Promise<FootprintPlace[]>;
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

/** A folder whose contents one provider (or one worktree set) judges. */
export interface ClaimedArea {
  /** Who claims it, as the config names it: `owl`, `worktrees set vibe-kanban`... */
  owner: string;
  folder: string;
}

/**
 * What one provider tells the others: the folders whose contents it judges, and the places of its
 * tool that worktree sets may root in. The worktrees provider reads these from every registered
 * provider, so that it never imports one (each provider is one folder).
 */
export type SetContext = Pick<GatherContext, 'config' | 'homes' | 'env' | 'registry'>;

/** A folder whose contents a provider judges: no worktree set may lie in it or hold it (rule 16). */
export interface ClaimedFolder {
  /** The provider, as overlap messages name it. */
  owner: string;
  /** A folder, or a pattern where the homes are patterns (as the config loader has them). */
  folder: string;
  /** Whose, in words: "Coding Owl's job worktrees". */
  whose: string;
  /**
   * The built-in worktree set of the same tool that gives way here (the Codex app's worktrees,
   * which the codex provider judges with Codex's thread database): its roots may lie in the folder
   * without a config being refused, and the worktrees provider leaves the folder to its claimer.
   */
  yields?: string;
}

/** Repositories a tool's own state names, for the anchors only its state can resolve. */
export interface StateFolders {
  /** The repositories' top folders, each owned by the owner of the home whose state names it. */
  repos: Array<{ path: string; basis: LocationBasis }>;
  /** State files that could not be read, each with a sentence naming the file. */
  problems: Array<{ file: string; error: string }>;
  /**
   * The tool's data is there but the state that names its folders is not (Claude Code's `~/.claude/`
   * without `~/.claude.json`): nothing failed, but the folders it would name were not looked at.
   */
  warnings?: Array<{ file: string; warning: string }>;
}

/**
 * A place of a tool's that a worktree set's root may start at, written `{name}`: a folder known
 * from the homes and the config (`{kilo-data}`), or one only the tool's state names
 * (`{kilo-projects}`: the repositories of Kilo's project rows).
 */
export type Anchor =
  | { name: string; folders(ctx: SetContext): Array<{ folder: string; basis: LocationBasis }> }
  | { name: string; fromState(ctx: SetContext): Promise<StateFolders> };

/** The worktrees a tool leaves, as a set of roots, on unless the config turns it off by name. */
export interface BuiltInSet {
  name: string;
  /** The tool, as its makers write its name. */
  tool: string;
  roots: readonly string[];
  idleAfter: string;
  /**
   * The built-in set it comes right before in the merged order (which decides which set keeps a
   * root two tools' states name): a tool's set that moved into its own provider keeps its place.
   */
  before?: string;
  /** What the tool's own record says of one of its worktrees, from the worktree's admin folder, for the detail. */
  describe?(adminDir: string): string | null;
  /**
   * What keeps the set's worktrees by its tool's own live records, beyond the set's rule (a Copilot
   * CLI session with a live in-use lock working in one). Read once per pass, and again with a fresh
   * look at the processes right before a removal.
   */
  keeps?(ctx: KeepContext): Promise<WorktreeKeeper>;
  /**
   * Whether a git lock of one of its worktrees is the tool's own and left by a process that is gone
   * (Claude Code's, SYSTEMS.md 11.1), so that every other check may run with the lock in place and
   * the executor may unlock it right before `git worktree remove`. Null where the lock is not the
   * tool's own: it is never touched.
   */
  staleLock?(lock: WorktreeLock, ctx: LockContext): Promise<LockAnswer>;
}

/** What a set's `keeps` reads: the tool's homes, and the processes of one look at /proc. */
export type KeepContext = Pick<GatherContext, 'config' | 'homes' | 'env' | 'processes'>;

/**
 * Whether the tool's records keep one worktree (found in a home of `owner`): a `kept` or `refused`
 * judgement naming the record, or null where nothing of the tool's keeps it.
 */
export type WorktreeKeeper = (worktree: string, owner: Owner) => OwnerJudgement | null;

/** A git-locked worktree of a set, and its lock's exact bytes (`<admin>/locked`). */
export interface WorktreeLock {
  worktree: string;
  adminDir: string;
  bytes: Uint8Array;
  /** The owner of the home the worktree was found in. */
  uid: number;
}

/** What a lock rule reads besides the lock: a look at the processes (fresh, for the executor's re-check), the homes. */
export interface LockContext {
  processes: ProcessTable;
  homes: readonly string[];
  env: NodeJS.ProcessEnv;
}

/**
 * A tool's answer about a lock of its own: `stale` (its process is gone; `detail` says how it is
 * known), `held` (its process runs, or that cannot be told: the worktree's judgement), or null
 * (not the tool's lock).
 */
export type LockAnswer =
  | { state: 'stale'; detail: string }
  | { state: 'held'; judgement: Exclude<OwnerJudgement, { decision: 'delete' }> }
  | null;
