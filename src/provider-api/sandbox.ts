import path from 'node:path';
import { readdirOrEmpty } from '../safety/fs/list.js';
import { lutimes } from '../safety/fs/write.js';

/**
 * Each provider contributes a sandbox builder: it lays out its tool's real on-disk state, in every
 * state its rule distinguishes, under `home` (and anywhere else inside `root`). The builders import
 * this module only, never the registry (src/providers/registry.ts), which imports every provider.
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
  /**
   * Files in the sandbox that a live process must hold open and write into while the demo's passes
   * run (an agent that outlived its session): the demo starts one per file and stops it when it
   * ends. A builder only names them, so a test that lays out its sandbox starts no process.
   */
  heldOpen?: string[];
}

/** Sets the mtime of a tree to `when` (children first, links themselves), so the demo's minAge lets it go. */
export async function backdateTree(root: string, when: Date): Promise<void> {
  for (const entry of await readdirOrEmpty(root)) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) await backdateTree(full, when);
    else await lutimes(full, when, when);
  }
  await lutimes(root, when, when);
}
