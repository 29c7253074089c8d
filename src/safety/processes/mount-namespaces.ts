import { readKernelFileSync } from '../fs/read.js';
import { parseMountinfo, type Mount } from './mountinfo.js';

/** The mounts of one mount namespace that show a subtree of a filesystem (bind mounts of a folder). */
export interface NamespaceMounts {
  /** As /proc/<pid>/ns/mnt names it: `mnt:[4026532301]`. */
  namespace: string;
  /** The process it was read through. */
  pid: number;
  /** The namespace of this process itself. */
  ours: boolean;
  subtreeMounts: Mount[];
}

export interface MountViews {
  /** Every mount of our own namespace, to place a path in its filesystem; null where unreadable. */
  own: Mount[] | null;
  namespaces: NamespaceMounts[];
}

/**
 * Reads one namespace's mounts (a mountinfo file), keeping the mounts of a subtree only: a
 * filesystem mounted whole reaches an item the way the host does, while a folder mounted on its
 * own is a view someone made of it. Throws what reading throws.
 */
export function readNamespaceMounts(file: string, namespace: string, pid: number, ours: boolean): NamespaceMounts {
  return namespaceView(parseMountinfo(readKernelFileSync(file)), namespace, pid, ours);
}

export function namespaceView(
  mounts: readonly Mount[],
  namespace: string,
  pid: number,
  ours: boolean,
): NamespaceMounts {
  return { namespace, pid, ours, subtreeMounts: mounts.filter((mount) => mount.root !== '/') };
}
