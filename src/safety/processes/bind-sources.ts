import path from 'node:path';
import { isInside } from '../containment.js';
import type { MountViews } from './mount-namespaces.js';
import { placeOf } from './mountinfo.js';

/**
 * Where a mount namespace has the folder at `canonical` (or a folder inside it) bind-mounted: a
 * container that mounts a session home at /workspace can enter it at any time, even with no
 * process inside at the moment, and renaming it on the host does not stop that. The folder is
 * placed in its filesystem through our own mounts, then every namespace's mounts are compared by
 * device and in-filesystem path. One sentence per such mount; none where our mounts are unknown.
 */
export function bindMountsOf(views: MountViews | null, canonical: string): string[] {
  if (!views?.own) return [];
  const place = placeOf(views.own, canonical);
  if (!place) return [];
  const found: string[] = [];
  for (const view of views.namespaces) {
    for (const mount of view.subtreeMounts) {
      if (mount.dev !== place.dev || !isInside(place.path, mount.root)) continue;
      // The mount our own path goes through is not a view of it (rule 2 judges a mount point).
      if (view.ours && mount.id === place.mountId) continue;
      const what = mount.root === place.path ? 'it' : `${path.relative(place.path, mount.root)} inside it`;
      const where = view.ours ? 'this mount namespace' : `mount namespace ${view.namespace} (process ${view.pid})`;
      found.push(`${where} has ${what} mounted at ${mount.mountPoint}`);
    }
  }
  return found;
}
