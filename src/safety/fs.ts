/**
 * Every file-system call of agent-janitor goes through this module, so that what the tool can do
 * to a disk is readable in one place: it lstat()s and never stat()s a candidate, it never follows a
 * link, and a missing entry (ENOENT) is success for anything that removes.
 *
 * Names are bytes (src/safety/names.ts): a path that is plain UTF-8 goes to the kernel as it is,
 * one that holds escaped bytes goes as its exact bytes; names, link targets and text read back are
 * decoded the same way, natively unless Node had to replace a byte.
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import { errorCode } from '../core/errors.js';
import { decodeBytes, encodeText, mayHaveLostBytes } from './names.js';

export type { Dirent, Stats };

type FsPath = string | Buffer;

/** Runs `call` on the path as the kernel must see it; an error names the path as we spell it. */
function named<T>(p: string, call: (at: FsPath) => T): T {
  if (p.isWellFormed()) return call(p);
  try {
    return call(encodeText(p));
  } catch (err) {
    throw respelled(err, p);
  }
}

async function namedAsync<T>(p: string, call: (at: FsPath) => Promise<T>): Promise<T> {
  if (p.isWellFormed()) return call(p);
  try {
    return await call(encodeText(p));
  } catch (err) {
    throw respelled(err, p);
  }
}

/** Node writes a byte path into its message with U+FFFD for each undecodable byte; ours keeps them. */
function respelled(err: unknown, p: string): unknown {
  if (err instanceof Error && 'path' in err && typeof err.path === 'string') {
    err.message = err.message.split(err.path).join(p);
    err.path = p;
  }
  return err;
}

function respelledPair(err: unknown, from: string, to: string): unknown {
  if (err instanceof Error && 'dest' in err && typeof err.dest === 'string') {
    err.message = err.message.split(err.dest).join(to);
    err.dest = to;
  }
  return respelled(err, from);
}

/** A listing's names, read again as bytes where Node could not decode one of them. */
function listNames(p: string): string[] {
  const names = named(p, (at) => fs.readdirSync(at));
  for (const name of names)
    if (mayHaveLostBytes(name)) return named(p, (at) => fs.readdirSync(at, { encoding: 'buffer' })).map(decodeBytes);
  return names;
}

function listEntries(p: string): Dirent[] {
  const entries = named(p, (at) => fs.readdirSync(at, { withFileTypes: true }));
  for (const entry of entries)
    if (mayHaveLostBytes(entry.name))
      return decodedEntries(named(p, (at) => fs.readdirSync(at, { withFileTypes: true, encoding: 'buffer' })));
  return entries;
}

async function listEntriesAsync(p: string): Promise<Dirent[]> {
  const entries = await namedAsync(p, (at) => fsp.readdir(at, { withFileTypes: true }));
  for (const entry of entries)
    if (mayHaveLostBytes(entry.name))
      return decodedEntries(await namedAsync(p, (at) => fsp.readdir(at, { withFileTypes: true, encoding: 'buffer' })));
  return entries;
}

function decodedEntries(entries: Array<Dirent<Buffer>>): Dirent[] {
  return entries.map((entry) => {
    const decoded = entry as unknown as Dirent;
    decoded.name = decodeBytes(entry.name);
    return decoded;
  });
}

function linkTarget(p: string): string {
  const target = named(p, (at) => fs.readlinkSync(at));
  return mayHaveLostBytes(target) ? decodeBytes(named(p, (at) => fs.readlinkSync(at, { encoding: 'buffer' }))) : target;
}

function canonical(p: string): string {
  const resolved = named(p, (at) => fs.realpathSync.native(at));
  return mayHaveLostBytes(resolved)
    ? decodeBytes(named(p, (at) => fs.realpathSync.native(at, { encoding: 'buffer' })))
    : resolved;
}

const lstat = (p: string): Promise<Stats> => namedAsync(p, (at) => fsp.lstat(at));
// The walk's and the remover's calls: the plain name goes straight to fs, without a closure.
export const lstatSync = (p: string): Stats =>
  p.isWellFormed() ? fs.lstatSync(p) : named(p, (at) => fs.lstatSync(at));
export const readlinkSync = (p: string): string => linkTarget(p);
export async function realpath(p: string): Promise<string> {
  const resolved = await namedAsync(p, (at) => fsp.realpath(at));
  return mayHaveLostBytes(resolved)
    ? decodeBytes(await namedAsync(p, (at) => fsp.realpath(at, { encoding: 'buffer' })))
    : resolved;
}
export const realpathSync = (p: string): string => canonical(p);
export const readFile = async (p: string): Promise<string> =>
  decodeBytes(await namedAsync(p, (at) => fsp.readFile(at)));
export const readFileBuffer = (p: string): Promise<Buffer> => namedAsync(p, (at) => fsp.readFile(at));
export const readFileSync = (p: string): string => decodeBytes(named(p, (at) => fs.readFileSync(at)));

/**
 * The kernel's files under /proc report a size of 0, and for those fs.readFileSync reads into a
 * fresh 64 kB buffer each time: a scan of every process would allocate megabytes of them. One
 * buffer is kept and grown instead (the text is a copy, so reusing it is safe).
 */
let kernelFileBuffer = Buffer.allocUnsafe(64 * 1024);

export function readKernelFileSync(p: string): string {
  return decodeBytes(
    named(p, (at) => {
      const fd = fs.openSync(at, 'r');
      try {
        let length = 0;
        for (;;) {
          if (length === kernelFileBuffer.length) {
            const larger = Buffer.allocUnsafe(kernelFileBuffer.length * 2);
            kernelFileBuffer.copy(larger, 0, 0, length);
            kernelFileBuffer = larger;
          }
          const read = fs.readSync(fd, kernelFileBuffer, length, kernelFileBuffer.length - length, null);
          if (read === 0) return kernelFileBuffer.subarray(0, length);
          length += read;
        }
      } finally {
        fs.closeSync(fd);
      }
    }),
  );
}
export const readdirSync = (p: string): Dirent[] => listEntries(p);
export const readdirNamesSync = (p: string): string[] => listNames(p);
export const mkdir = (p: string, mode?: number): Promise<string | undefined> =>
  namedAsync(p, (at) => fsp.mkdir(at, { recursive: true, mode }));
async function rename(from: string, to: string): Promise<void> {
  if (from.isWellFormed() && to.isWellFormed()) return fsp.rename(from, to);
  try {
    await fsp.rename(encodeText(from), encodeText(to));
  } catch (err) {
    throw respelledPair(err, from, to);
  }
}
export function renameSync(from: string, to: string): void {
  if (from.isWellFormed() && to.isWellFormed()) {
    fs.renameSync(from, to);
    return;
  }
  try {
    fs.renameSync(encodeText(from), encodeText(to));
  } catch (err) {
    throw respelledPair(err, from, to);
  }
}
export const writeFile = (p: string, data: string | Uint8Array, flag = 'w', mode = 0o644): Promise<void> =>
  namedAsync(p, (at) => fsp.writeFile(at, data, { flag, mode }));
export const appendFile = (p: string, data: string): Promise<void> =>
  namedAsync(p, (at) => fsp.appendFile(at, data, { mode: 0o644 }));
export const utimes = (p: string, atime: Date, mtime: Date): Promise<void> =>
  namedAsync(p, (at) => fsp.utimes(at, atime, mtime));
/** For sandboxes and fixtures: make a link, and age a link itself rather than its target. */
export const symlink = (target: string, p: string): Promise<void> =>
  namedAsync(p, (at) => fsp.symlink(encodeText(target), at));
export const lutimes = (p: string, atime: Date, mtime: Date): Promise<void> =>
  namedAsync(p, (at) => fsp.lutimes(at, atime, mtime));
export const open = (p: string, flags: string | number, mode?: number) =>
  namedAsync(p, (at) => fsp.open(at, flags, mode));
// Synchronous forms for work that must run under a borrowed identity (asOwner is synchronous).
export const mkdirSync = (p: string, mode?: number): string | undefined =>
  named(p, (at) => fs.mkdirSync(at, { recursive: true, mode }));
export const mkdirExclusiveSync = (p: string, mode: number): void => named(p, (at) => fs.mkdirSync(at, { mode }));
/** For a lock's heartbeat, touched from a thread of its own whatever the main thread is doing. */
export const utimesSync = (p: string, atime: Date, mtime: Date): void =>
  named(p, (at) => fs.utimesSync(at, atime, mtime));
export const writeFileExclusiveSync = (p: string, data: string, mode = 0o644): void =>
  named(p, (at) => fs.writeFileSync(at, data, { flag: 'wx', mode }));
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
/** mkdir of one folder (its parent must exist): the kernel's own error, which a recursive mkdir may replace by ENOENT. */
export const mkdirOne = (p: string, mode: number): Promise<void> => namedAsync(p, (at) => fsp.mkdir(at, { mode }));
/** The type of the file system holding `p` (statfs f_type), for the pass's own folders. */
export const fileSystemType = async (p: string): Promise<number> => (await namedAsync(p, (at) => fsp.statfs(at))).type;
/** Whether this process may create and remove entries in the folder `p` (W_OK and X_OK), or why not. */
export async function writableOrWhy(p: string): Promise<string | null> {
  try {
    await namedAsync(p, (at) => fsp.access(at, fs.constants.W_OK | fs.constants.X_OK));
    return null;
  } catch (err) {
    return errorCode(err) ?? 'EACCES';
  }
}
/** The same, synchronously, for /proc (`PROC_SUPER_MAGIC` for a procfs): the process scan is synchronous. */
export const fileSystemTypeSync = (p: string): number => named(p, (at) => fs.statfsSync(at).type);

/** Reads a directory's entries, or an empty list where the directory does not exist. */
export async function readdirOrEmpty(p: string): Promise<Dirent[]> {
  try {
    return await listEntriesAsync(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return [];
    throw err;
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

/** lstat that answers null for a missing entry. */
export async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

export function lstatOrNullSync(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

export function readFileOrNullSync(p: string): string | null {
  try {
    return readFileSync(p);
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
    handle = await open(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
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
    fd = named(p, (at) => fs.openSync(at, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK));
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
    return await readFile(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

export function unlinkSync(p: string): void {
  try {
    if (p.isWellFormed()) fs.unlinkSync(p);
    else named(p, fs.unlinkSync);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

export function rmdirSync(p: string): void {
  try {
    if (p.isWellFormed()) fs.rmdirSync(p);
    else named(p, (at) => fs.rmdirSync(at));
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

async function unlink(p: string): Promise<void> {
  try {
    await namedAsync(p, fsp.unlink);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

/** Writes a file so that a reader sees the old content or the new, never half: temp file, then rename. */
export async function writeFileAtomic(p: string, data: string | Iterable<string>, mode = 0o644): Promise<void> {
  const temp = `${p}.tmp-${process.pid}-${Date.now()}`;
  const handle = await open(temp, 'w', mode);
  try {
    if (typeof data === 'string') await handle.writeFile(data);
    else for (const batch of batches(data)) await writeWhole(temp, handle, Buffer.from(batch));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, p);
  } catch (err) {
    await unlink(temp);
    throw err;
  }
}

const WRITE_BATCH_CHARS = 64 * 1024;

/** A write may take less than it is given (a full disk takes what fits first): the rest follows. */
async function writeWhole(p: string, handle: fsp.FileHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    if (bytesWritten === 0) throw new Error(`${p}: the file took no more bytes`);
    written += bytesWritten;
  }
}

/** Pieces joined into strings of about WRITE_BATCH_CHARS, in order. */
function* batches(pieces: Iterable<string>): Generator<string> {
  let held: string[] = [];
  let length = 0;
  for (const piece of pieces) {
    held.push(piece);
    length += piece.length;
    if (length >= WRITE_BATCH_CHARS) {
      yield held.join('');
      held = [];
      length = 0;
    }
  }
  if (length > 0) yield held.join('');
}

/**
 * Changes the working directory. Node passes a path to chdir as UTF-8 text, so a folder whose path
 * is not UTF-8 is opened by its bytes (never through a link) and entered through its descriptor's
 * /proc link, which Linux resolves to the folder itself. A plain name takes the plain call.
 */
export function chdirSync(p: string): void {
  if (p.isWellFormed()) {
    process.chdir(p);
    return;
  }
  const fd = named(p, (at) =>
    fs.openSync(at, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW),
  );
  try {
    process.chdir(`/proc/self/fd/${fd}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** unlink that answers false, instead of succeeding quietly, where the entry was not there. */
export function unlinkIfPresentSync(p: string): boolean {
  try {
    if (p.isWellFormed()) fs.unlinkSync(p);
    else named(p, fs.unlinkSync);
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

/** rmdir that answers false, instead of succeeding quietly, where the folder was not there. */
export function rmdirIfPresentSync(p: string): boolean {
  try {
    if (p.isWellFormed()) fs.rmdirSync(p);
    else named(p, (at) => fs.rmdirSync(at));
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

// O_PATH (Linux): a descriptor that names an entry without opening it for reading, so a FIFO is
// never waited on and no read permission is needed. Node does not export the constant.
const O_PATH = 0o10000000;

/** A descriptor naming the entry at `p` (links followed, as a path given to a program would be). */
export function openPathSync(p: string): number {
  return named(p, (at) => fs.openSync(at, O_PATH));
}

export const closeSync = (fd: number): void => fs.closeSync(fd);
