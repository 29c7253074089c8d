/** The pids that hold one file (one device and inode), and the next file of the same inode number. */
interface Holders {
  dev: number;
  pids: number[];
  other: Holders | null;
}

/**
 * Which processes hold which files, by identity (device and inode): a working directory, a root,
 * an open file or a mapped file. Keyed by inode number, so that a walk asks one Map lookup per
 * entry; the rare inode number shared by two devices is chained.
 */
export class IdentityIndex {
  private readonly byInode = new Map<number, Holders>();

  /** Records that `pid` holds the file `dev`/`ino` (a pid is added once per file). */
  add(dev: number, ino: number, pid: number): void {
    let holders = this.byInode.get(ino);
    if (!holders) {
      this.byInode.set(ino, { dev, pids: [pid], other: null });
      return;
    }
    for (;;) {
      if (holders.dev === dev) {
        // A process is inspected whole before the next, so its repeats are adjacent.
        if (holders.pids[holders.pids.length - 1] !== pid) holders.pids.push(pid);
        return;
      }
      if (!holders.other) {
        holders.other = { dev, pids: [pid], other: null };
        return;
      }
      holders = holders.other;
    }
  }

  /** The pids holding the file `dev`/`ino`, or undefined when none does. */
  holdersOf(dev: number, ino: number): readonly number[] | undefined {
    let holders: Holders | null = this.byInode.get(ino) ?? null;
    while (holders) {
      if (holders.dev === dev) return holders.pids;
      holders = holders.other;
    }
    return undefined;
  }

  get size(): number {
    return this.byInode.size;
  }
}
