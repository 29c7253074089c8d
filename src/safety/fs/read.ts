/** Reading files: text decoded as bytes, never through a link or into a FIFO where it matters. */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import type { Stats } from 'node:fs';
import { ignoreMissing, ignoreMissingAsync } from './ignore-missing.js';
import { decodeBytes } from './names.js';
import { named, namedAsync } from './paths.js';

export type FileHandle = fsp.FileHandle;

const NO_FOLLOW_READ = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

export const readFile = async (p: string): Promise<string> =>
  decodeBytes(await namedAsync(p, (at) => fsp.readFile(at)));
export const readFileBuffer = (p: string): Promise<Buffer> => namedAsync(p, (at) => fsp.readFile(at));
export const readFileSync = (p: string): string => decodeBytes(named(p, (at) => fs.readFileSync(at)));

/** Reads a text file, or null where it does not exist. */
export const readFileOrNull = (p: string): Promise<string | null> => ignoreMissingAsync(() => readFile(p), null);
export const readFileOrNullSync = (p: string): string | null => ignoreMissing(() => readFileSync(p), null);

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

const openNoFollow = (p: string): Promise<FileHandle> => namedAsync(p, (at) => fsp.open(at, NO_FOLLOW_READ));

/** Opens a state file of a tool's to read, through a link (people keep those in their dotfiles) but never waiting on a FIFO. */
export const openStateFile = (p: string): Promise<FileHandle> =>
  namedAsync(p, (at) => fsp.open(at, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK));

/**
 * Opens a file to read without following a link or waiting on a FIFO, and answers what `read`
 * makes of it when it is a regular file; null when it is no regular file or cannot be read.
 */
export async function readRegularFile<T>(
  p: string,
  read: (handle: FileHandle, stats: Stats) => Promise<T | null>,
): Promise<T | null> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(p);
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
  const fd = ignoreMissing(() => named(p, (at) => fs.openSync(at, NO_FOLLOW_READ)), null);
  if (fd === null) return null;
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
 * The first `count` bytes of a regular file (fewer where it is shorter), read without following a
 * link or waiting on a FIFO; null where it does not exist. Anything but a regular file throws.
 */
export function readHeadSync(p: string, count: number): Buffer | null {
  const fd = ignoreMissing(() => named(p, (at) => fs.openSync(at, NO_FOLLOW_READ)), null);
  if (fd === null) return null;
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${p} is not a regular file`);
    const head = Buffer.alloc(count);
    let length = 0;
    while (length < count) {
      const read = fs.readSync(fd, head, length, count - length, length);
      if (read === 0) break;
      length += read;
    }
    return head.subarray(0, length);
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
  const handle = await ignoreMissingAsync(() => openStateFile(p), null);
  if (handle === null) return null;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${p} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${p} is larger than ${maxBytes} bytes`);
    return { text: await handle.readFile('utf8'), uid: stats.uid };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** readStateFile, synchronously: for a small settings file read where a caller cannot wait (a provider's claims). */
export function readStateFileSync(p: string, maxBytes: number): { text: string; uid: number } | null {
  const fd = ignoreMissing(
    () => named(p, (at) => fs.openSync(at, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)),
    null,
  );
  if (fd === null) return null;
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${p} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${p} is larger than ${maxBytes} bytes`);
    return { text: fs.readFileSync(fd, 'utf8'), uid: stats.uid };
  } finally {
    fs.closeSync(fd);
  }
}
