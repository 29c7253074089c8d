/** Descriptors of entries: to enter a folder whose path is not UTF-8, or to hand one to a child. */
import * as fs from 'node:fs';
import { ignoreMissing } from './ignore-missing.js';
import { named } from './paths.js';

/** The flags `open(2)` takes, for the few callers that open a file with care of their own. */
export const { constants } = fs;

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

// O_PATH (Linux): a descriptor that names an entry without opening it for reading, so a FIFO is
// never waited on and no read permission is needed. Node does not export the constant.
const O_PATH = 0o10000000;

/** A descriptor naming the entry at `p` (links followed, as a path given to a program would be). */
export function openPathSync(p: string): number {
  return named(p, (at) => fs.openSync(at, O_PATH));
}

export const closeSync = (fd: number): void => fs.closeSync(fd);

/** A lock file held open: its descriptor, and which file it is. */
export interface OpenLockFile {
  fd: number;
  dev: number;
  ino: number;
}

/**
 * Opens another tool's lock file to lock it: read-only, never through a link at its last step,
 * never a FIFO waited on, and never created (a lock file that is not there is the owner's to make).
 * Answers null where it does not exist; throws where it is anything but a regular file.
 */
export function openLockFileSync(p: string): OpenLockFile | null {
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;
  const fd = ignoreMissing(() => named(p, (at) => fs.openSync(at, flags)), null);
  if (fd === null) return null;
  const stats = fs.fstatSync(fd);
  if (!stats.isFile()) {
    fs.closeSync(fd);
    throw new Error(`${p} is not a regular file`);
  }
  return { fd, dev: stats.dev, ino: stats.ino };
}
