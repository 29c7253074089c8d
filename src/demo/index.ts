import { watchfireSandbox } from '../providers/watchfire/demo.js';
import { owlSandbox } from '../providers/owl/demo.js';
import { worktreesSandbox } from '../providers/worktrees/demo.js';
import { kiloSandbox } from '../providers/kilo/demo.js';
import { clineSandbox } from '../providers/cline/demo.js';
import { rooSandbox } from '../providers/roo/demo.js';
/**
 * Each provider contributes a sandbox builder: it lays out its tool's real on-disk state, in every
 * state its rule distinguishes, under `home` (and anywhere else inside `root`).
 */
export interface SandboxContext {
  /** The sandbox folder. */
  root: string;
  /** The fake user's home inside it. */
  home: string;
  /** Files older than this are old enough to delete (minAge is 1h in the demo). */
  old: Date;
}

export interface SandboxBuilder {
  name: string;
  build(ctx: SandboxContext): Promise<SandboxExtras> | Promise<void>;
}

/** What a builder needs the demo's config to say beyond the home (the worktree sets, say). */
export interface SandboxExtras {
  config?: Record<string, unknown>;
}

// One import and one entry per provider's builder.
export function sandboxBuilders(): SandboxBuilder[] {
  return [watchfireSandbox, kiloSandbox, owlSandbox, worktreesSandbox, clineSandbox, rooSandbox];
}
