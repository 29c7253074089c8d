import { chdirSync } from './descriptors.js';
import { lstatSync } from './stat.js';

/**
 * What tells one folder from another: enough to notice a swap. Kept instead of the whole Stats,
 * so a deep or wide walk holds two numbers per pending folder, not an object and its four Dates.
 */
export interface FolderIdentity {
  dev: number;
  ino: number;
}

/**
 * Walks a tree by changing the working directory into each folder and naming entries relative to
 * it, the way openat() would: a folder swapped for a symlink between the look and the step is
 * caught (its inode differs), and a tree deeper than PATH_MAX is no problem. Only one cursor may
 * be open at a time in a process; callers run it synchronously.
 */
export class CwdCursor {
  private readonly home: string;
  private readonly trail: FolderIdentity[] = [];
  private readonly names: string[] = [];

  constructor(private readonly rootPath: string) {
    this.home = process.cwd();
  }

  /** Enters the root, which lstat showed as `expected`. */
  open(expected?: FolderIdentity): void {
    const before = expected ?? lstatSync(this.rootPath);
    chdirSync(this.rootPath);
    this.verifyHere(before, this.rootPath);
  }

  /** Steps into a child folder that lstat showed as `expected`. */
  enter(name: string, expected: FolderIdentity): void {
    chdirSync(name);
    this.names.push(name);
    this.verifyHere(expected, name);
  }

  /** Steps back to the parent and proves it is the folder we came from. */
  leave(): void {
    process.chdir('..');
    this.names.pop();
    this.trail.pop();
    const parent = this.trail[this.trail.length - 1];
    if (!parent) return;
    const here = lstatSync('.');
    if (here.ino !== parent.ino || here.dev !== parent.dev) {
      throw new TreeSwappedError(`${this.describe()} moved while being walked`);
    }
  }

  get depth(): number {
    return this.trail.length;
  }

  /** The inodes of the folders from the root's child down to the current folder: the way back to an entry here. */
  folderInodes(): number[] {
    return this.trail.slice(1).map((folder) => folder.ino);
  }

  /** The absolute path of the current folder, for messages only (built on demand). */
  describe(name?: string): string {
    const parts = [this.rootPath, ...this.names];
    if (name !== undefined) parts.push(name);
    return parts.join('/');
  }

  /**
   * Leaves the tree for the folder the cursor started in, or for `/` where that folder cannot be
   * entered any more (a walk as another user that started in root's private home: asOwner walks
   * back once it is root again).
   */
  close(): void {
    try {
      process.chdir(this.home);
    } catch {
      process.chdir('/');
    }
  }

  private verifyHere(expected: FolderIdentity, name: string): void {
    const here = lstatSync('.');
    if (here.ino !== expected.ino || here.dev !== expected.dev) {
      throw new TreeSwappedError(
        `${this.describe()} is not the folder that was looked at (${name} was swapped, perhaps for a link)`,
      );
    }
    this.trail.push({ dev: here.dev, ino: here.ino });
  }
}

export class TreeSwappedError extends Error {
  override name = 'TreeSwappedError';
}
