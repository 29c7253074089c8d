/**
 * Every file-system call of agent-janitor goes through this module, so that what the tool can do
 * to a disk is readable in one place: it lstat()s and never stat()s a candidate, it never follows a
 * link, and a missing entry (ENOENT) is success for anything that removes.
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import type { Dir, Dirent, Stats } from 'node:fs';
import { errorCode } from '../core/errors.js';

export type { Dir, Dirent, Stats };

export const lstat = (p: string): Promise<Stats> => fsp.lstat(p);
export const lstatSync = (p: string): Stats => fs.lstatSync(p);
export const readlink = (p: string): Promise<string> => fsp.readlink(p);
export const readlinkSync = (p: string): string => fs.readlinkSync(p);
export const realpath = (p: string): Promise<string> => fsp.realpath(p);
export const realpathSync = (p: string): string => fs.realpathSync.native(p);
export const readFile = (p: string): Promise<string> => fsp.readFile(p, 'utf8');
export const readFileBuffer = (p: string): Promise<Buffer> => fsp.readFile(p);
export const readFileSync = (p: string): string => fs.readFileSync(p, 'utf8');
export const readdirSync = (p: string): Dirent[] => fs.readdirSync(p, { withFileTypes: true });
export const readdirNamesSync = (p: string): string[] => fs.readdirSync(p);
export const opendirSync = (p: string): Dir => fs.opendirSync(p, { bufferSize: 256 });
export const mkdir = (p: string, mode?: number): Promise<string | undefined> => fsp.mkdir(p, { recursive: true, mode });
export const mkdirExclusive = (p: string, mode: number): Promise<void> => fsp.mkdir(p, { mode });
export const rename = (from: string, to: string): Promise<void> => fsp.rename(from, to);
export const renameSync = (from: string, to: string): void => fs.renameSync(from, to);
export const writeFile = (p: string, data: string | Uint8Array, flag = 'w', mode = 0o644): Promise<void> =>
  fsp.writeFile(p, data, { flag, mode });
export const appendFile = (p: string, data: string): Promise<void> => fsp.appendFile(p, data, { mode: 0o644 });
export const utimes = (p: string, atime: Date, mtime: Date): Promise<void> => fsp.utimes(p, atime, mtime);
/** For sandboxes and fixtures: make a link, and age a link itself rather than its target. */
export const symlink = (target: string, p: string): Promise<void> => fsp.symlink(target, p);
export const lutimes = (p: string, atime: Date, mtime: Date): Promise<void> => fsp.lutimes(p, atime, mtime);
export const open = (p: string, flags: string | number, mode?: number) => fsp.open(p, flags, mode);
// Synchronous forms for work that must run under a borrowed identity (asOwner is synchronous).
export const mkdirSync = (p: string, mode?: number): string | undefined => fs.mkdirSync(p, { recursive: true, mode });
export const mkdirExclusiveSync = (p: string, mode: number): void => fs.mkdirSync(p, { mode });
export const writeFileExclusiveSync = (p: string, data: string, mode = 0o644): void =>
  fs.writeFileSync(p, data, { flag: 'wx', mode });
/**
 * stat() that follows a link, for /proc's links only (`/proc/<pid>/fd/3`, `cwd`, `root`): the
 * kernel resolves them to the very file a process holds, whatever mount namespace it is in. Never
 * used on a candidate. Null where the entry is gone (the descriptor was closed meanwhile).
 */
export const statProcLinkSync = (p: string): Stats | null => fs.statSync(p, { throwIfNoEntry: false }) ?? null;

/** Reads a directory's entries, or an empty list where the directory does not exist. */
export async function readdirOrEmpty(p: string): Promise<Dirent[]> {
  try {
    return await fsp.readdir(p, { withFileTypes: true });
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return [];
    throw err;
  }
}

/** lstat that answers null for a missing entry. */
export async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

export function lstatOrNullSync(p: string): Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

export function readFileOrNullSync(p: string): string | null {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * Opens a file to read without following a link or waiting on a FIFO, and answers what `read`
 * makes of it when it is a regular file; null when it is no regular file or cannot be read.
 */
export async function readRegularFile<T>(
  p: string,
  read: (handle: fsp.FileHandle, stats: Stats) => Promise<T | null>,
): Promise<T | null> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = await handle.stat();
    return stats.isFile() ? await read(handle, stats) : null;
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The bytes of a regular file of at most `maxBytes`, read without following a link or waiting on a
 * FIFO; null where it does not exist. Anything else (a link, a folder, a larger file) throws.
 */
export function readRegularFileSync(p: string, maxBytes: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${p} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${p} is larger than ${maxBytes} bytes`);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Empties a regular file in place, without following a link, and only when it is still the file
 * (`expected` device and inode) that was looked at.
 */
export function truncateRegularFileSync(p: string, expected: { dev: number; ino: number }): void {
  const fd = fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile() || stats.dev !== expected.dev || stats.ino !== expected.ino) {
      throw new Error(`${p} changed while it was being repaired`);
    }
    fs.ftruncateSync(fd, 0);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A tool's own state file (a JSON the user's tool writes in their home): followed through a link,
 * since people keep such files in their dotfiles, but never a FIFO, nothing but a regular file, and
 * at most `maxBytes`. Answers its text and its owner, or null where it does not exist.
 */
export async function readStateFile(p: string, maxBytes: number): Promise<{ text: string; uid: number } | null> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${p} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${p} is larger than ${maxBytes} bytes`);
    return { text: await handle.readFile('utf8'), uid: stats.uid };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Reads a text file, or null where it does not exist. */
export async function readFileOrNull(p: string): Promise<string | null> {
  try {
    return await fsp.readFile(p, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

export function unlinkSync(p: string): void {
  try {
    fs.unlinkSync(p);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

export function rmdirSync(p: string): void {
  try {
    fs.rmdirSync(p);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

export async function unlink(p: string): Promise<void> {
  try {
    await fsp.unlink(p);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

export async function rmdir(p: string): Promise<void> {
  try {
    await fsp.rmdir(p);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

/** Writes a file so that a reader sees the old content or the new, never half: temp file, then rename. */
export async function writeFileAtomic(p: string, data: string, mode = 0o644): Promise<void> {
  const temp = `${p}.tmp-${process.pid}-${Date.now()}`;
  const handle = await fsp.open(temp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fsp.rename(temp, p);
  } catch (err) {
    await unlink(temp);
    throw err;
  }
}
