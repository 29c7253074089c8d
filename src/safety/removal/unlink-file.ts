import path from 'node:path';
import { errorCode, RemovalStopped } from '../../model/errors.js';
import { CwdCursor } from '../fs/cwd-cursor.js';
import { unlinkIfPresentSync } from '../fs/entries.js';
import { lstatSync } from '../fs/stat.js';
import { isStrictlyInside } from '../inside.js';
import { asOwner, type Owner } from '../owners/owner.js';
import { changedSince } from '../since.js';

/** What the plan saw of the file: it must still be this very file, unchanged since `sinceMs`. */
export interface ExpectedFile {
  dev: number;
  ino: number;
  /** The moment the pass began collecting evidence (src/safety/since.ts). */
  sinceMs: number;
}

/**
 * Unlinks one regular file, as the single-file removal of a `git-garbage` item: the cursor steps
 * from `root` down to the file's folder, proving each folder on the way is a real folder (a link
 * swapped in is caught: the cursor compares identities) on the root's filesystem, then the file is
 * looked at by its name in that folder, right before the unlink: a regular file on the same
 * filesystem, the very inode judged (device and inode), and no change (ctime) since the pass began
 * collecting evidence. Anything else stops it (`changed-during-inspection`), nothing removed. The
 * last look and the unlink run as `owner` (rule 6), in the folder the cursor proved: the owner
 * needs no way down from `/`, and the kernel checks the unlink as theirs.
 * Synchronous, like the remover: nothing else of this process runs in between.
 */
export function unlinkProvenFile(root: string, file: string, expected: ExpectedFile, owner: Owner | null): void {
  const changed = (detail: string) => new RemovalStopped('refused', 'changed-during-inspection', detail);
  const top = path.resolve(root);
  const target = path.resolve(file);
  if (!isStrictlyInside(top, target)) throw changed(`${target} is not inside ${top}`);
  const steps = path.relative(top, target).split(path.sep);
  const name = steps.pop() as string;
  const cursor = new CwdCursor(top);
  try {
    const rootStats = lstatSync(top);
    if (!rootStats.isDirectory()) throw changed(`${top} is no longer a real folder`);
    cursor.open(rootStats);
    for (const step of steps) {
      const stats = lstatSync(step);
      if (!stats.isDirectory())
        throw changed(`${cursor.describe(step)} is no longer a real folder (a link or a file was put in its place)`);
      if (stats.dev !== rootStats.dev) throw changed(`${cursor.describe(step)} is on another filesystem now`);
      cursor.enter(step, stats);
    }
    // From here on as the file's owner, in its folder: the look right before the unlink, and the unlink.
    asOwner(owner, () => {
      const now = lstatSync(name);
      if (!now.isFile()) throw changed(`${target} is no longer a regular file`);
      if (now.dev !== expected.dev || now.ino !== expected.ino)
        throw changed(`${target} was replaced after it was judged (another inode)`);
      if (changedSince(now.ctimeMs, expected.sinceMs))
        throw changed(
          `${target} changed at ${new Date(now.ctimeMs).toISOString()} (ctime), after the pass began collecting its evidence at ${new Date(expected.sinceMs).toISOString()}`,
        );
      if (!unlinkIfPresentSync(name)) throw changed(`${target} disappeared before it could be removed`);
    });
  } catch (err) {
    if (errorCode(err) === 'ENOENT') throw changed(`${target} or a folder above it disappeared after it was judged`);
    throw err;
  } finally {
    cursor.close();
  }
}
