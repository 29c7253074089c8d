import path from 'node:path';
import { readKernelFileSync } from '../fs/read.js';
import { statFields } from './stat-fields.js';

/**
 * The pids below `ancestor` in the process tree (its children, theirs, and so on), from each
 * process's parent in `/proc/<pid>/stat`. A process that ends meanwhile is simply left out; one
 * whose parent died was handed to another and is no longer below it.
 */
export function descendantsOf(procRoot: string, pids: readonly number[], ancestor: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(procRoot, pid);
    if (parent === null) continue;
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  const below = new Set<number>();
  const pending = [ancestor];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop() as number) ?? []) {
      if (below.has(child)) continue;
      below.add(child);
      pending.push(child);
    }
  }
  return below;
}

function parentOf(procRoot: string, pid: number): number | null {
  try {
    const stat = readKernelFileSync(path.join(procRoot, String(pid), 'stat'));
    const parent = Number(statFields(stat)[1]);
    return Number.isInteger(parent) ? parent : null;
  } catch {
    return null;
  }
}
