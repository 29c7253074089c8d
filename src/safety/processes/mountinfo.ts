import path from 'node:path';
import { foldersUp } from '../path-index.js';
import { parseDecimalDevice } from '../fs/device-number.js';

/** One line of /proc/<pid>/mountinfo: which folder of which filesystem is mounted where. */
export interface Mount {
  id: number;
  /** The filesystem's device number, as `Stats.dev` carries it. */
  dev: number;
  /** The folder of that filesystem shown at the mount point ('/' unless a bind mount of a subtree). */
  root: string;
  mountPoint: string;
}

/** Parses a mountinfo text; lines that are not of its form are skipped. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5) continue;
    const dev = parseDecimalDevice(fields[2] as string);
    if (Number.isNaN(dev)) continue;
    mounts.push({
      id: Number(fields[0]),
      dev,
      root: withoutDeletedMark(unescapeMountField(fields[3] as string)),
      mountPoint: unescapeMountField(fields[4] as string),
    });
  }
  return mounts;
}

/** The kernel writes space, tab, newline and backslash in mountinfo as octal escapes (`\040`). */
export function unescapeMountField(field: string): string {
  if (!field.includes('\\')) return field;
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** A mount whose source folder was removed shows its root with `//deleted` appended. */
function withoutDeletedMark(root: string): string {
  return root.endsWith('//deleted') ? root.slice(0, -'//deleted'.length) : root;
}

/** Where a path lies in its filesystem: the device, and the path from that filesystem's root. */
export interface FilesystemPlace {
  dev: number;
  path: string;
  /** The mount it was reached through. */
  mountId: number;
}

/**
 * The filesystem and in-filesystem path of `canonical` (an absolute path without links) in the
 * namespace whose mounts are given: the last-listed mount whose mount point holds it is the one on
 * top. Null when no mount holds it.
 */
export function placeOf(mounts: readonly Mount[], canonical: string): FilesystemPlace | null {
  const byMountPoint = mountPointsOf(mounts);
  // The deepest mount point above the path; of mounts on the same point, the last listed.
  for (const folder of foldersUp(path.resolve(canonical))) {
    const best = byMountPoint.get(folder);
    if (best)
      return { dev: best.dev, path: path.join(best.root, path.relative(best.mountPoint, canonical)), mountId: best.id };
  }
  return null;
}

/** Each mount point's top mount, once per list of mounts (a pass asks of every item). */
const mountPointIndexes = new WeakMap<readonly Mount[], Map<string, Mount>>();

function mountPointsOf(mounts: readonly Mount[]): Map<string, Mount> {
  let index = mountPointIndexes.get(mounts);
  if (!index) {
    index = new Map();
    for (const mount of mounts) index.set(path.resolve(mount.mountPoint), mount);
    mountPointIndexes.set(mounts, index);
  }
  return index;
}
