import { bindMountsOf } from './bind-sources.js';
import { realpathSync } from './fs.js';
import { pidsInside, union } from './inspect.js';
import type { ProcessTable } from './processes.js';
import { pidsHoldingAny, type TreeInodes } from './walk-watch.js';

/**
 * The last look before a delete: by a fresh scan of /proc, why the folder now at `doomed` (its
 * quarantine, or where it was judged) must be kept after all, or null. A process inside it by path
 * or by identity (any inode the plan's walk saw), or a mount namespace that has mounted it since.
 */
export function arrivalSince(processes: ProcessTable, doomed: string, inodes: TreeInodes | null): string | null {
  const pids = union(pidsInside(processes, doomed), inodes ? pidsHoldingAny(processes.identities, inodes) : []);
  if (pids.length > 0)
    return `process ${pids.slice(0, 5).join(', ')} got inside after it was judged (working directory, root, an open file or a mapping)`;
  const mounts = bindMountsOf(processes.mounts, canonical(doomed));
  if (mounts.length > 0) return `since it was judged, ${mounts.slice(0, 3).join('; ')}`;
  return null;
}

function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
