import path from 'node:path';
import { statProcLinkSync } from '../fs/stat.js';
import { framesAbove, sameIdentity, type Identity } from './resolve.js';

/** Where a process works, next to a folder of the pass's (rule 25). */
export type WorkingPlace =
  /** Its working directory is the folder, or lies inside it. */
  | { state: 'inside' }
  /** It works elsewhere, or has ended. */
  | { state: 'outside' }
  /** It cannot be told: a comparison with it counts as a match. */
  | { state: 'unknown'; why: string };

/**
 * Whether a process works in `folder`, by identity: its `/proc/<pid>/cwd` or a folder above it, up
 * to its own root, is `folder`, however the process reaches it (a container's `/workspace`, a home
 * through a link, a folder renamed since). A process that has ended works nowhere.
 */
export function workingIn(procRoot: string, pid: number, folder: Identity): WorkingPlace {
  const dir = path.join(procRoot, String(pid));
  if (ended(dir)) return { state: 'outside' };
  const frames = framesAbove(path.join(dir, 'cwd'), path.join(dir, 'root'));
  if ('why' in frames) return ended(dir) ? { state: 'outside' } : { state: 'unknown', why: frames.why };
  return frames.some((frame) => sameIdentity(frame.id, folder)) ? { state: 'inside' } : { state: 'outside' };
}

/** Its /proc folder is gone; one that cannot be looked at is taken as alive. */
function ended(dir: string): boolean {
  try {
    return statProcLinkSync(dir) === null;
  } catch {
    return false;
  }
}
