import path from 'node:path';
import { RemovalStopped } from '../../model/errors.js';
import type { Removal } from '../../provider-api/candidate.js';
import { isStrictlyInside } from '../../safety/containment.js';
import { lstatOrNull, realpath } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readFileOrNull } from '../../safety/fs/read.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';
import type { KeepingRef } from './ref-files.js';
import { readWorktreeRefFiles } from './worktree-refs.js';

/** An admin entry `<common>/worktrees/<id>` whose worktree folder is gone. */
export interface StaleAdminEntry {
  adminDir: string;
  /** `<common>/worktrees`, the folder the entry must be contained in. */
  adminRoot: string;
  /** The worktree folder the entry names (it no longer exists). */
  worktree: string;
  /**
   * The per-worktree refs the entry holds (refs/worktree/*, refs/bisect/*, refs/rewritten/*), which
   * go with it; null where its files cannot tell (reftable, a symbolic ref, odd content).
   */
  worktreeRefs: KeepingRef[] | null;
  /**
   * `<adminDir>/modules` when the entry holds a submodule's git directory: that repository's
   * commits may exist nowhere else, so the entry is never pruned as stale (rule 24).
   */
  submoduleGitDirs: string | null;
}

/**
 * The admin entries of `commonDir` that are stale and ours to prune: the worktree they name lies
 * under `ownedRoot` (Owl's own worktrees/ folder, which exists), its folder is gone while the
 * folder it sat in is there (so no volume is merely missing), and the entry is not locked. An
 * entry for a worktree anywhere else is never looked at twice.
 */
export async function findStaleAdminEntries(commonDir: string, ownedRoot: string): Promise<StaleAdminEntry[]> {
  const adminRoot = path.join(commonDir, 'worktrees');
  const found: StaleAdminEntry[] = [];
  for (const entry of await readdirOrEmpty(adminRoot)) {
    if (!entry.isDirectory() || quarantinedName(entry.name) !== null) continue;
    const adminDir = path.join(adminRoot, entry.name);
    const stale = await staleEntry(adminDir, ownedRoot);
    if (!stale) continue;
    found.push({
      adminDir,
      adminRoot,
      worktree: stale,
      worktreeRefs: readWorktreeRefFiles({ adminDir, commonDir }),
      submoduleGitDirs: await submoduleGitDirs(adminDir),
    });
  }
  return found;
}

/** The missing worktree an admin entry names, when the entry is stale and ours; else null. */
async function staleEntry(adminDir: string, ownedRoot: string): Promise<string | null> {
  const gitdir = await readFileOrNull(path.join(adminDir, 'gitdir'));
  if (!gitdir || gitdir.trim() === '') return null;
  const worktree = path.dirname(path.resolve(adminDir, gitdir.trim()));
  if (!(await isUnder(ownedRoot, worktree))) return null;
  if (await lstatOrNull(path.join(adminDir, 'locked'))) return null;
  if (await lstatOrNull(worktree)) return null;
  const parent = await lstatOrNull(path.dirname(worktree));
  if (!parent?.isDirectory()) return null;
  return worktree;
}

/** `<adminDir>/modules`, where git keeps a worktree's submodule repositories, when it is there in any form. */
async function submoduleGitDirs(adminDir: string): Promise<string | null> {
  const modules = path.join(adminDir, 'modules');
  return (await lstatOrNull(modules)) ? modules : null;
}

/** Inside the owned root as written, or as the root resolves (git may have recorded either). */
async function isUnder(ownedRoot: string, worktree: string): Promise<boolean> {
  if (isStrictlyInside(path.resolve(ownedRoot), worktree)) return true;
  try {
    return isStrictlyInside(await realpath(ownedRoot), worktree);
  } catch {
    return false;
  }
}

/**
 * Removes just this one admin entry (the executor renames it, proves it and removes it as a tree),
 * after proving again that it is stale and ours, that it holds the very refs of its own that were
 * judged (none, or ones whose commits other refs hold), and no submodule repositories.
 */
export function adminEntryRemoval(entry: StaleAdminEntry, ownedRoot: string): Removal {
  const changed = (detail: string) => new RemovalStopped('refused', 'changed-during-inspection', detail);
  return {
    type: 'tree',
    guard: {
      async recheck() {
        const still = await staleEntry(entry.adminDir, ownedRoot);
        if (still !== entry.worktree)
          throw changed(
            `the admin entry ${entry.adminDir} is no longer a stale entry of ${entry.worktree}; left alone`,
          );
        const refs = readWorktreeRefFiles({ adminDir: entry.adminDir, commonDir: path.dirname(entry.adminRoot) });
        if (refs === null || JSON.stringify(refs) !== JSON.stringify(entry.worktreeRefs))
          throw changed(`the refs of its own in ${entry.adminDir} changed since it was judged; left alone`);
        if (await submoduleGitDirs(entry.adminDir))
          throw new RemovalStopped(
            'unfinished',
            'nested-repository',
            `${entry.adminDir} now holds submodule repositories in modules/; left alone`,
          );
        return undefined;
      },
    },
  };
}
