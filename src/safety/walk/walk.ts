import { errorCode, errorMessage } from '../../model/errors.js';
import { CwdCursor, TreeSwappedError, type FolderIdentity } from '../fs/cwd-cursor.js';
import { lstatOrNullSync, lstatSync } from '../fs/stat.js';
import { readdirNamesSync } from '../fs/list.js';
import type { Stats } from '../fs/stat.js';
import { foreignBecause, isForeign } from '../owners/ownership.js';

export interface TreeFacts {
  /** Apparent size: every non-directory entry's st_size (a symlink counts as the link itself). */
  bytes: number;
  /** How many entries are not folders (files, links, sockets…), the root itself when it is one. */
  files: number;
  /** The largest of them (ties: the lowest inode), or null when there is none. */
  largest: LargestFile | null;
  /** Newest mtime (ms) of the folder and every entry under it. */
  newestWriteMs: number;
  /**
   * Newest mtime of the entries that are not folders, or null when there are none. A delete
   * refreshes the mtime of every folder it empties, so a half-deleted quarantine is aged by this.
   */
  newestFileWriteMs: number | null;
  entries: number;
  /** A folder on another filesystem below the root (not descended into). */
  mountInside: boolean;
  /** Where part of the tree could not be read; its age and size are then unknown. */
  error?: string;
  /** Entries named `.git` below the top folder: git repositories nested in the tree. */
  nestedGit: NestedGitEntries;
  /** The uid of the top folder: the owner the whole tree would be deleted as. */
  uid: number;
  /** The top's device and inode, as the walk saw it: the tree's identity without another lstat. */
  dev: number;
  ino: number;
  /** The first entry that keeps the tree from being deleted as that one owner, and why (rule 20). */
  foreign?: string;
  /**
   * An entry that a listing named and that was gone before it could be looked at, in the walk
   * that is the answer: its age and size are then unknown (see measureTree).
   */
  vanished?: string;
}

/**
 * The largest file of a tree, by identity: a walk that prints no names (GNU find's) still tells
 * which it is, and `largestFilePath` finds its name when someone asks for it.
 */
export interface LargestFile {
  bytes: number;
  dev: number;
  ino: number;
  /** The inodes of the folders from the root's child down to the one that holds it (empty: in the root, or the root). */
  trail: number[];
}

export interface NestedGitEntries {
  /** How many there are. */
  count: number;
  /** The first of them (at most NESTED_GIT_PATHS), as absolute paths. */
  paths: string[];
}

/** Enough to tell a worktree's registered submodules from the rest, and to name a few. */
const NESTED_GIT_PATHS = 256;
const GIT_ENTRY = '.git';

type Pending = Array<[name: string, identity: FolderIdentity]>;

/** Who an entry is: its device and inode, as lstat gives them. */
export interface EntryIdentity {
  dev: number;
  ino: number;
}

/** Sees every entry a walk lstat()s, the root included: a check that rides on the walk instead of a second one. */
export type EntryVisitor = (entry: EntryIdentity) => void;

/**
 * Entries below the root that a walk leaves out, neither counted nor entered: what another walk
 * measures (an item inside a tool's folder, a place inside another). Asked of every entry with its
 * name; answers true to leave it out.
 */
export type EntrySkip = (entry: EntryIdentity, name: string) => boolean;

/**
 * The size and newest write of a folder tree. An entry listed and then gone before its lstat is
 * never skipped as if it had not been there: the tree is walked once more, and that walk is the
 * answer, complete when nothing vanished during it, else saying which entry did (`vanished`).
 */
export function measureTree(root: string, visit?: EntryVisitor, skip?: EntrySkip): TreeFacts {
  const first = walkTree(root, visit, skip);
  return first.vanished === undefined ? first : walkTree(root, visit, skip);
}

/** Whether `a` is the larger file: more bytes, or as many and a lower device and inode (as any walk of the same tree says). */
export function largerFile(
  a: Pick<LargestFile, 'bytes' | 'dev' | 'ino'>,
  b: Pick<LargestFile, 'bytes' | 'dev' | 'ino'> | null,
): boolean {
  if (b === null) return true;
  if (a.bytes !== b.bytes) return a.bytes > b.bytes;
  return a.dev !== b.dev ? a.dev < b.dev : a.ino < b.ino;
}

/**
 * One walk that yields both the size and the newest write of a folder tree. Iterative (a tree ten
 * thousand levels deep has no recursion to overflow), never follows a link, never leaves the
 * filesystem of the root.
 */
function walkTree(root: string, visit?: EntryVisitor, skip?: EntrySkip): TreeFacts {
  const top = lstatSync(root);
  visit?.(top);
  const facts: TreeFacts = {
    bytes: top.isDirectory() ? 0 : top.size,
    files: top.isDirectory() ? 0 : 1,
    largest: top.isDirectory() ? null : { bytes: top.size, dev: top.dev, ino: top.ino, trail: [] },
    newestWriteMs: top.mtimeMs,
    newestFileWriteMs: top.isDirectory() ? null : top.mtimeMs,
    entries: 0,
    mountInside: false,
    nestedGit: { count: 0, paths: [] },
    uid: top.uid,
    dev: top.dev,
    ino: top.ino,
  };
  const why = foreignBecause(top.uid, top);
  if (why) facts.foreign = `${root} ${why}`;
  if (!top.isDirectory()) return facts;
  const cursor = new CwdCursor(root);
  try {
    cursor.open(top);
    const frames: Pending[] = [scanHere(cursor, top.dev, facts, visit, skip)];
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as Pending;
      const next = frame.pop();
      if (!next) {
        frames.pop();
        if (frames.length > 0) cursor.leave();
        continue;
      }
      const [name, identity] = next;
      try {
        cursor.enter(name, identity);
      } catch (err) {
        if (err instanceof TreeSwappedError) throw err;
        if (errorCode(err) === 'ENOENT') facts.vanished ??= cursor.describe(name);
        else facts.error ??= `cannot enter ${cursor.describe(name)}: ${errorMessage(err)}`;
        continue;
      }
      frames.push(scanHere(cursor, top.dev, facts, visit, skip));
    }
  } catch (err) {
    facts.error ??= errorMessage(err);
  } finally {
    cursor.close();
  }
  return facts;
}

function scanHere(
  cursor: CwdCursor,
  device: number,
  facts: TreeFacts,
  visit?: EntryVisitor,
  skip?: EntrySkip,
): Pending {
  const folders: Pending = [];
  let names: string[];
  try {
    names = readdirNamesSync('.');
  } catch (err) {
    facts.error ??= `cannot read ${cursor.describe()}: ${errorMessage(err)}`;
    return folders;
  }
  for (const name of names) {
    let stats: Stats;
    try {
      stats = lstatSync(name);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') facts.vanished ??= cursor.describe(name);
      else facts.error ??= `cannot stat ${cursor.describe(name)}: ${errorMessage(err)}`;
      continue;
    }
    if (skip?.(stats, name)) continue;
    visit?.(stats);
    facts.entries += 1;
    if (facts.foreign === undefined && isForeign(facts.uid, stats.uid, stats.mode))
      facts.foreign = `${cursor.describe(name)} ${foreignBecause(facts.uid, stats)}`;
    // The top's own `.git` is the tree's repository; one further down is a repository of its own.
    if (name === GIT_ENTRY && cursor.depth > 1) noteNestedGit(facts.nestedGit, cursor.describe(name));
    if (stats.mtimeMs > facts.newestWriteMs) facts.newestWriteMs = stats.mtimeMs;
    if (!stats.isDirectory()) {
      facts.bytes += stats.size;
      facts.files += 1;
      if (largerFile({ bytes: stats.size, dev: stats.dev, ino: stats.ino }, facts.largest))
        facts.largest = { bytes: stats.size, dev: stats.dev, ino: stats.ino, trail: cursor.folderInodes() };
      if (facts.newestFileWriteMs === null || stats.mtimeMs > facts.newestFileWriteMs)
        facts.newestFileWriteMs = stats.mtimeMs;
    } else if (stats.dev !== device) facts.mountInside = true;
    else folders.push([name, { dev: stats.dev, ino: stats.ino }]);
  }
  return folders;
}

function noteNestedGit(found: NestedGitEntries, entry: string): void {
  found.count += 1;
  if (found.paths.length < NESTED_GIT_PATHS) found.paths.push(entry);
}

/**
 * The path of a tree's largest file, found again from the root by the inodes of the folders on its
 * way (a few folders listed, never the tree walked); null when the way no longer leads to it (the
 * file or a folder above it moved since the walk).
 */
export function largestFilePath(root: string, largest: LargestFile): string | null {
  try {
    const top = lstatSync(root);
    if (!top.isDirectory()) return top.dev === largest.dev && top.ino === largest.ino ? root : null;
    let here = root;
    for (const ino of largest.trail) {
      const next = childWithInode(here, largest.dev, ino, true);
      if (next === null) return null;
      here = next;
    }
    return childWithInode(here, largest.dev, largest.ino, false);
  } catch {
    return null;
  }
}

function childWithInode(folder: string, dev: number, ino: number, wantFolder: boolean): string | null {
  for (const name of readdirNamesSync(folder)) {
    const child = `${folder}/${name}`;
    const stats = lstatOrNullSync(child);
    if (stats && stats.dev === dev && stats.ino === ino && stats.isDirectory() === wantFolder) return child;
  }
  return null;
}
