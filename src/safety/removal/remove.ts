import { errorCode } from '../../model/errors.js';
import { CwdCursor, type FolderIdentity } from '../fs/cwd-cursor.js';
import { lstatOrNullSync, lstatSync } from '../fs/stat.js';
import { readdirNamesSync, readdirSync } from '../fs/list.js';
import { rmdirIfPresentSync, rmdirSync, unlinkIfPresentSync, unlinkSync } from '../fs/entries.js';
import type { Dirent } from '../fs/list.js';
import type { Stats } from '../fs/stat.js';

export class MountInsideError extends Error {
  override name = 'MountInsideError';
}

export interface RemoveResult {
  /** Entries unlinked or removed, the root included. */
  removed: number;
}

interface Frame {
  name: string | null;
  pending: Array<[string, FolderIdentity]>;
  retries: number;
}

const RETRIES = 3;

/**
 * Removes a folder tree without ever following a symlink (links are unlinked, never entered) and
 * without leaving the filesystem of the root (a mount point inside stops the delete). A missing
 * root is success, so a second call is a no-op. Entries written while it runs are removed too:
 * a folder that is not empty when its turn comes is read again, a few times. An entry a listing
 * named that is missing when its turn comes is gone only if a fresh listing agrees: one still
 * listed is an error, never counted as removed. `emptying` runs each emptying of the folder (as
 * the tree's owner, say: src/pass/executor.ts), and the emptied top is removed after it returns.
 */
export function removeTree(root: string, emptying: (empty: () => void) => void = (empty) => empty()): RemoveResult {
  const result: RemoveResult = { removed: 0 };
  const top = lstatOrNullSync(root);
  if (!top) return result;
  if (!top.isDirectory()) {
    unlinkSync(root);
    result.removed += 1;
    return result;
  }
  for (let attempt = 0; ; attempt += 1) {
    emptying(() => emptyFolder(root, top, result));
    try {
      rmdirSync(root);
      result.removed += 1;
      return result;
    } catch (err) {
      if (errorCode(err) !== 'ENOTEMPTY' || attempt >= RETRIES) throw err;
    }
  }
}

function emptyFolder(root: string, top: Stats, result: RemoveResult): void {
  const cursor = new CwdCursor(root);
  try {
    cursor.open(top);
    const frames: Frame[] = [{ name: null, pending: unlinkHere(cursor, top.dev, result), retries: 0 }];
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as Frame;
      const next = frame.pending.pop();
      if (next) {
        const [name, identity] = next;
        try {
          cursor.enter(name, identity);
        } catch (err) {
          if (errorCode(err) !== 'ENOENT') throw err;
          assertGone(cursor, name);
          continue;
        }
        frames.push({ name, pending: unlinkHere(cursor, top.dev, result), retries: 0 });
        continue;
      }
      if (frame.name === null) return;
      if (removeEmptied(cursor, frame, top.dev, result)) frames.pop();
    }
  } finally {
    cursor.close();
  }
}

/** Leaves a folder and removes it; a folder that filled up meanwhile is read again instead. */
function removeEmptied(cursor: CwdCursor, frame: Frame, device: number, result: RemoveResult): boolean {
  cursor.leave();
  const name = frame.name as string;
  try {
    if (rmdirIfPresentSync(name)) result.removed += 1;
    else assertGone(cursor, name);
    return true;
  } catch (err) {
    if (errorCode(err) !== 'ENOTEMPTY' || frame.retries >= RETRIES) throw err;
  }
  const stats = lstatSync(name);
  cursor.enter(name, stats);
  frame.retries += 1;
  frame.pending = unlinkHere(cursor, device, result);
  return false;
}

function unlinkHere(cursor: CwdCursor, device: number, result: RemoveResult): Array<[string, FolderIdentity]> {
  const folders: Array<[string, FolderIdentity]> = [];
  for (const entry of readdirSync('.')) {
    const { name } = entry;
    // The type readdir reports spares an lstat per file, as rm does: unlink never follows a link,
    // and a folder swapped in since the listing fails it with EISDIR (EPERM by POSIX) and is
    // looked at below like any folder.
    const unlinked = isKnownNonDirectory(entry) ? unlinkUnlessFolder(name) : 'folder';
    if (unlinked === 'removed') {
      result.removed += 1;
      continue;
    }
    const stats = unlinked === 'missing' ? null : lstatOrNullSync(name);
    if (!stats) {
      assertGone(cursor, name);
      continue;
    }
    if (!stats.isDirectory()) {
      if (unlinkIfPresentSync(name)) result.removed += 1;
      else assertGone(cursor, name);
    } else if (stats.dev !== device) {
      throw new MountInsideError(`${cursor.describe(name)} is a mount point; nothing below it is removed`);
    } else {
      folders.push([name, { dev: stats.dev, ino: stats.ino }]);
    }
  }
  return folders;
}

/** A type readdir knows (DT_UNKNOWN answers false to every question) that is not a folder. */
function isKnownNonDirectory(entry: Dirent): boolean {
  return (
    entry.isFile() ||
    entry.isSymbolicLink() ||
    entry.isFIFO() ||
    entry.isSocket() ||
    entry.isCharacterDevice() ||
    entry.isBlockDevice()
  );
}

/** Unlinks `name`; `folder` when it turned out to be a folder (left for the caller to look at). */
function unlinkUnlessFolder(name: string): 'removed' | 'folder' | 'missing' {
  try {
    return unlinkIfPresentSync(name) ? 'removed' : 'missing';
  } catch (err) {
    const code = errorCode(err);
    if (code === 'EISDIR' || code === 'EPERM') return 'folder';
    throw err;
  }
}

/**
 * An entry the listing named was missing when it was removed or looked at: gone (another remover,
 * a tool's own cleanup) only if the folder no longer lists it. A name still listed that cannot be
 * reached is an error, never a success.
 */
function assertGone(cursor: CwdCursor, name: string): void {
  if (readdirNamesSync('.').includes(name))
    throw new Error(`${cursor.describe(name)} is listed but cannot be reached (ENOENT); it is not counted as removed`);
}
