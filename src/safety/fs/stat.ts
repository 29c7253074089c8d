/**
 * What an entry is, without following a link but where a caller says so: lstat() for everything a
 * pass judges; stat() only for /proc's links and the pass's own folders.
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import type { Stats } from 'node:fs';
import { errorCode } from '../../model/errors.js';
import { ignoreMissing, ignoreMissingAsync } from './ignore-missing.js';
import { decodeBytes, mayHaveLostBytes } from './names.js';
import { named, namedAsync } from './paths.js';

export type { Stats };

// The walk's and the remover's call: the plain name goes straight to fs, without a closure.
export const lstatSync = (p: string): Stats =>
  p.isWellFormed() ? fs.lstatSync(p) : named(p, (at) => fs.lstatSync(at));

/** lstat that answers null for a missing entry. */
export const lstatOrNull = (p: string): Promise<Stats | null> =>
  ignoreMissingAsync(() => namedAsync(p, (at) => fsp.lstat(at)), null);

export const lstatOrNullSync = (p: string): Stats | null => ignoreMissing(() => lstatSync(p), null);

export function readlinkSync(p: string): string {
  const target = named(p, (at) => fs.readlinkSync(at));
  return mayHaveLostBytes(target) ? decodeBytes(named(p, (at) => fs.readlinkSync(at, { encoding: 'buffer' }))) : target;
}

export async function realpath(p: string): Promise<string> {
  const resolved = await namedAsync(p, (at) => fsp.realpath(at));
  return mayHaveLostBytes(resolved)
    ? decodeBytes(await namedAsync(p, (at) => fsp.realpath(at, { encoding: 'buffer' })))
    : resolved;
}

export function realpathSync(p: string): string {
  const resolved = named(p, (at) => fs.realpathSync.native(at));
  return mayHaveLostBytes(resolved)
    ? decodeBytes(named(p, (at) => fs.realpathSync.native(at, { encoding: 'buffer' })))
    : resolved;
}

/**
 * stat() that follows a link, for /proc's links only (`/proc/<pid>/fd/3`, `cwd`, `root`): the
 * kernel resolves them to the very file a process holds, whatever mount namespace it is in. Never
 * used on a candidate. Null where the entry is gone (the descriptor was closed meanwhile).
 */
export const statProcLinkSync = (p: string): Stats | null => fs.statSync(p, { throwIfNoEntry: false }) ?? null;

/** For the pass's own folders only (the report folder, the metrics file's): stat() that follows links, or null. */
export async function statOrNull(p: string): Promise<Stats | null> {
  try {
    return await namedAsync(p, (at) => fsp.stat(at));
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

/** The type of the file system holding `p` (statfs f_type), for the pass's own folders. */
export const fileSystemType = async (p: string): Promise<number> => (await namedAsync(p, (at) => fsp.statfs(at))).type;

/** The same, synchronously, for /proc (`PROC_SUPER_MAGIC` for a procfs): the process scan is synchronous. */
export const fileSystemTypeSync = (p: string): number => named(p, (at) => fs.statfsSync(at).type);

/**
 * Whether this process may `change` the folder `p` (create and remove entries in it: W_OK and X_OK)
 * or `list` it (R_OK and X_OK), or the error code that says why not.
 */
export async function folderAccessOrWhy(p: string, need: 'change' | 'list'): Promise<string | null> {
  const mode = need === 'list' ? fs.constants.R_OK | fs.constants.X_OK : fs.constants.W_OK | fs.constants.X_OK;
  try {
    await namedAsync(p, (at) => fsp.access(at, mode));
    return null;
  } catch (err) {
    return errorCode(err) ?? 'EACCES';
  }
}

/**
 * A folder, or a link to one (a tool's folder moved to another disk and linked back). Anything
 * that cannot be looked at answers false: the caller then has nothing there to judge.
 */
export async function isFolderOrLinkToOne(p: string): Promise<boolean> {
  try {
    const stats = await lstatOrNull(p);
    if (!stats) return false;
    if (stats.isDirectory()) return true;
    if (!stats.isSymbolicLink()) return false;
    return (await lstatOrNull(await realpath(p)))?.isDirectory() === true;
  } catch {
    return false;
  }
}
