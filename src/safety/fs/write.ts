/** Making folders and writing files: the pass's own report and locks, Kilo's lock, and sandboxes. */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import { errorCode } from '../../model/errors.js';
import { encodeText } from './names.js';
import { named, namedAsync, respelledPair } from './paths.js';

export const mkdir = (p: string, mode?: number): Promise<string | undefined> =>
  namedAsync(p, (at) => fsp.mkdir(at, { recursive: true, mode }));
/** mkdir of one folder (its parent must exist): the kernel's own error, which a recursive mkdir may replace by ENOENT. */
export const mkdirOne = (p: string, mode: number): Promise<void> => namedAsync(p, (at) => fsp.mkdir(at, { mode }));
/** A new folder of the pass's own under the system's temp folder (the demo's sandbox). */
export const mkdtemp = (prefix: string): Promise<string> => fsp.mkdtemp(prefix);
export const writeFile = (p: string, data: string | Uint8Array, flag = 'w', mode = 0o644): Promise<void> =>
  namedAsync(p, (at) => fsp.writeFile(at, data, { flag, mode }));
export const appendFile = (p: string, data: string): Promise<void> =>
  namedAsync(p, (at) => fsp.appendFile(at, data, { mode: 0o644 }));

/**
 * Appends to a file of the pass's own, made with `mode` when it is new; one that exists with more
 * permissions than `mode` (made by an older version) is narrowed to it. A link is not followed.
 */
export async function appendPrivateFile(p: string, data: string, mode: number): Promise<void> {
  const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;
  const handle = await open(p, flags, mode);
  try {
    const { mode: now } = await handle.stat();
    if ((now & 0o777 & ~mode) !== 0) await handle.chmod(now & mode & 0o777);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}
/** For sandboxes and fixtures: make a link, and age a link itself rather than its target. */
export const symlink = (target: string, p: string): Promise<void> =>
  namedAsync(p, (at) => fsp.symlink(encodeText(target), at));
export const lutimes = (p: string, atime: Date, mtime: Date): Promise<void> =>
  namedAsync(p, (at) => fsp.lutimes(at, atime, mtime));
const open = (p: string, flags: string | number, mode?: number) => namedAsync(p, (at) => fsp.open(at, flags, mode));
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
 * Puts a file back as it was: made anew (never over one that is there, never through a link) with
 * exactly `bytes`, `mode` whatever the umask, and its old times.
 */
export function writeBackFileSync(p: string, bytes: Uint8Array, was: { mode: number; atime: Date; mtime: Date }): void {
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
  const fd = named(p, (at) => fs.openSync(at, flags, was.mode & 0o7777));
  try {
    for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    fs.fchmodSync(fd, was.mode & 0o7777);
    fs.futimesSync(fd, was.atime, was.mtime);
  } finally {
    fs.closeSync(fd);
  }
}
/** Writes to a descriptor this process holds (the log's stream on stderr), all of it, now. */
export const writeToDescriptorSync = (fd: number, bytes: Uint8Array): number => fs.writeSync(fd, bytes);

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
    await namedAsync(temp, fsp.unlink).catch((gone) => {
      if (errorCode(gone) !== 'ENOENT') throw gone;
    });
    throw err;
  }
}

async function rename(from: string, to: string): Promise<void> {
  if (from.isWellFormed() && to.isWellFormed()) return fsp.rename(from, to);
  try {
    await fsp.rename(encodeText(from), encodeText(to));
  } catch (err) {
    throw respelledPair(err, from, to);
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
