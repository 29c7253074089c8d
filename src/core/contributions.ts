import type { LocationBasis } from '../safety/owners/location-basis.js';
import type { GatherContext } from './types.js';

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
}
