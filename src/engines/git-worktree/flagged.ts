import { createHash } from 'node:crypto';
import path from 'node:path';
import { git, runGit } from '../../git/git.js';
import { gitIdentityFor, type Owner } from '../../safety/owners/owner.js';
import { lstatOrNullSync, readlinkSync } from '../../safety/fs/stat.js';
import type { FlaggedEntry } from './index-gitlinks.js';

/** Files flagged assume-unchanged or skip-worktree that differ from the index: changes git status does not show. */
export interface FlaggedChanges {
  count: number;
  /** A few of the paths, for the report's detail. */
  sample: string[];
}

const FILE_TYPE = 0o10;
const SYMLINK_TYPE = 0o12;
const EXECUTABLE = 0o100;
const NONE: FlaggedChanges = { count: 0, sample: [] };

/**
 * Compares each flagged entry with its file the way git would if the flag were not there: a file
 * gone, a file turned into a link or a folder, a changed link target, a changed exec bit (unless
 * `core.fileMode` is off), content that hashes to another blob once git's clean filters and
 * end-of-line rules are applied (`git hash-object --stdin-paths` in the worktree, for the flagged
 * files only). A skip-worktree entry whose file is absent is no change where sparse checkout is on:
 * that is how a sparse checkout leaves the paths outside its cone. Nothing is flagged in most
 * worktrees, and then this costs nothing; git is started only for what the files alone cannot settle.
 */
export async function compareFlagged(
  worktree: string,
  entries: readonly FlaggedEntry[],
  homeOwner?: Owner,
): Promise<FlaggedChanges> {
  if (entries.length === 0) return NONE;
  const changed: string[] = [];
  const absentSkipped: string[] = [];
  const execDiffers: string[] = [];
  const toHash: FlaggedEntry[] = [];
  for (const entry of entries) {
    const type = entry.mode >>> 12;
    if (type !== FILE_TYPE && type !== SYMLINK_TYPE) continue; // a gitlink: the submodule checks see to it
    // A name that is not UTF-8 (or cannot be handed to git on a line) cannot be checked; it counts as changed.
    if (entry.path.includes('\uFFFD') || entry.path.includes('\n')) {
      changed.push(entry.path);
      continue;
    }
    const file = path.join(worktree, ...entry.path.split('/'));
    const stats = lstatOrNullSync(file);
    if (stats === null) {
      (entry.skipWorktree ? absentSkipped : changed).push(entry.path);
    } else if (type === SYMLINK_TYPE) {
      if (!stats.isSymbolicLink() || blobId(Buffer.from(readlinkSync(file)), entry.oid) !== entry.oid)
        changed.push(entry.path);
    } else if (!stats.isFile()) {
      changed.push(entry.path);
    } else {
      const executable = (stats.mode & EXECUTABLE) !== 0;
      if (executable !== ((entry.mode & EXECUTABLE) !== 0)) execDiffers.push(entry.path);
      toHash.push(entry);
    }
  }
  if (absentSkipped.length > 0 || execDiffers.length > 0) {
    const settings = await readSettings(worktree);
    if (!settings.sparseCheckout) changed.push(...absentSkipped);
    if (settings.fileMode) changed.push(...execDiffers);
  }
  if (toHash.length > 0) {
    const ids = (
      await git(['hash-object', '--stdin-paths'], {
        cwd: worktree,
        input: toHash.map((e) => `${e.path}\n`).join(''),
        owner: gitIdentityFor(worktree, homeOwner),
      })
    )
      .split('\n')
      .filter((line) => line !== '');
    if (ids.length !== toHash.length)
      throw new Error(`git hash-object in ${worktree} answered ${ids.length} ids for ${toHash.length} files`);
    toHash.forEach((entry, k) => {
      if (ids[k] !== entry.oid && !changed.includes(entry.path)) changed.push(entry.path);
    });
  }
  return changed.length === 0 ? NONE : { count: new Set(changed).size, sample: [...new Set(changed)].slice(0, 3) };
}

/** The blob id git gives these bytes, in the hash the repository uses (told by the id's width). */
function blobId(content: Buffer, like: string): string {
  const algorithm = like.length === 64 ? 'sha256' : 'sha1';
  return createHash(algorithm).update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** `core.sparseCheckout` (off by default) and `core.fileMode` (on by default) as git reads them for the worktree. */
async function readSettings(worktree: string): Promise<{ sparseCheckout: boolean; fileMode: boolean }> {
  const result = await runGit(['config', '--type=bool', '--get-regexp', '^core\\.(sparsecheckout|filemode)$'], {
    cwd: worktree,
  });
  // Exit 1: neither is set. Anything else but 0 is a failure to read the config, not an answer.
  if (result.code !== 0 && !(result.code === 1 && result.stdout === ''))
    throw new Error(`git config in ${worktree} failed (${result.code}): ${result.stderr.trim()}`);
  const values = new Map<string, string>();
  for (const line of result.stdout.split('\n')) {
    const [key, value] = line.split(' ');
    if (key && value) values.set(key.toLowerCase(), value);
  }
  return {
    sparseCheckout: values.get('core.sparsecheckout') === 'true',
    fileMode: values.get('core.filemode') !== 'false',
  };
}
