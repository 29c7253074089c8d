import path from 'node:path';
import { ignoreMissing } from '../../safety/fs/ignore-missing.js';
import { readdirSync, type Dirent } from '../../safety/fs/list.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';

/** One of git's temporary files, as lstat saw it when it was listed. */
export interface GarbageFile {
  path: string;
  name: string;
  bytes: number;
  mtimeMs: number;
}

/**
 * git's own names for its temporary files in `objects/pack/`: a pack, its index, reverse index,
 * mtimes and bitmap being written (`tmp_pack_XXXXXX`, …), the packs `git repack` writes under
 * `.tmp-<pid>-pack-*` before it renames them, and lock files.
 */
const PACK_GARBAGE = [
  /^tmp_pack_/,
  /^tmp_idx_/,
  /^tmp_rev_/,
  /^tmp_mtimes_/,
  /^tmp_bitmap_/,
  /^\.tmp-\d+-pack-/,
  /\.lock$/,
];
/** A loose object being written, in `objects/` or (git 2.x) in its fan-out folder. */
const OBJECT_GARBAGE = /^tmp_obj_/;
const FAN_OUT = /^[0-9a-f]{2}$/;

/**
 * The temporary files git left in the repository whose git folder is `gitdir`, exactly as git
 * names them (git's own names for its temporary files), and nothing else: regular files only (lstat: a link, a folder
 * or a FIFO of such a name is never listed), each with its size. Everything else in the repository
 * (loose objects, packs, refs) is never garbage here, whatever git's own gc would call it. A
 * repository without `objects/` has none; a folder that cannot be read is an error.
 */
export async function listGitGarbage(gitdir: string): Promise<GarbageFile[]> {
  // Synchronous: a repository has up to 256 fan-out folders of a few entries each, and a trip
  // through the threadpool for each costs more than the listing itself.
  const objects = path.join(gitdir, 'objects');
  const found: GarbageFile[] = [];
  const list = (dir: string): Dirent[] => ignoreMissing(() => readdirSync(dir), []);
  const take = (dir: string, entry: Dirent): void => {
    // The type readdir reports can only rule a file out; lstat decides.
    if (entry.isDirectory() || entry.isSymbolicLink()) return;
    const file = path.join(dir, entry.name);
    const stats = lstatOrNullSync(file);
    if (stats?.isFile()) found.push({ path: file, name: entry.name, bytes: stats.size, mtimeMs: stats.mtimeMs });
  };
  const top = list(objects);
  for (const entry of top) {
    if (OBJECT_GARBAGE.test(entry.name)) take(objects, entry);
    else if (FAN_OUT.test(entry.name) && entry.isDirectory()) {
      const fanOut = path.join(objects, entry.name);
      for (const inner of list(fanOut)) if (OBJECT_GARBAGE.test(inner.name)) take(fanOut, inner);
    }
  }
  if (top.some((entry) => entry.name === 'pack' && entry.isDirectory())) {
    const pack = path.join(objects, 'pack');
    for (const entry of list(pack)) if (PACK_GARBAGE.some((pattern) => pattern.test(entry.name))) take(pack, entry);
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
