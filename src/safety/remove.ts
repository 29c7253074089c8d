import { errorCode } from '../core/errors.js';
import { CwdCursor } from './cwd-cursor.js';
import { lstatOrNullSync, lstatSync, readdirNamesSync, rmdirSync, unlinkSync } from './fs.js';
import type { Stats } from './fs.js';

export class MountInsideError extends Error {
  override name = 'MountInsideError';
}

export interface RemoveResult {
  /** Entries unlinked or removed, the root included. */
  removed: number;
}

interface Frame {
  name: string | null;
  pending: Array<[string, Stats]>;
  retries: number;
}

const RETRIES = 3;

/**
 * Removes a folder tree without ever following a symlink (links are unlinked, never entered) and
 * without leaving the filesystem of the root (a mount point inside stops the delete). A missing
 * root is success, so a second call is a no-op. Entries written while it runs are removed too:
 * a folder that is not empty when its turn comes is read again, a few times.
 */
export function removeTree(root: string): RemoveResult {
  const result: RemoveResult = { removed: 0 };
  const top = lstatOrNullSync(root);
  if (!top) return result;
  if (!top.isDirectory()) {
    unlinkSync(root);
    result.removed += 1;
    return result;
  }
  for (let attempt = 0; ; attempt += 1) {
    emptyFolder(root, top, result);
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
        const [name, stats] = next;
        try {
          cursor.enter(name, stats);
        } catch (err) {
          if (errorCode(err) === 'ENOENT') continue;
          throw err;
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
    rmdirSync(name);
    result.removed += 1;
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

function unlinkHere(cursor: CwdCursor, device: number, result: RemoveResult): Array<[string, Stats]> {
  const folders: Array<[string, Stats]> = [];
  for (const name of readdirNamesSync('.')) {
    const stats = lstatOrNullSync(name);
    if (!stats) continue;
    if (!stats.isDirectory()) {
      unlinkSync(name);
      result.removed += 1;
    } else if (stats.dev !== device) {
      throw new MountInsideError(`${cursor.describe(name)} is a mount point; nothing below it is removed`);
    } else {
      folders.push([name, stats]);
    }
  }
  return folders;
}
