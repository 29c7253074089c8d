import type { IdentityIndex } from '../processes/identities.js';
import type { EntryIdentity, EntryVisitor } from './walk.js';

/**
 * The inodes of a walked tree, kept only for a tree a pass is about to delete: the last look at
 * /proc before the delete asks whether a process holds any of them. A walk never leaves the
 * filesystem of its root, so one device covers them all.
 */
export interface TreeInodes {
  dev: number;
  inodes: Float64Array;
}

interface TreeRecord {
  dev: number;
  pids: Set<number> | null;
  inodes: Float64Array | null;
  count: number;
}

/**
 * Rides on every walk of a pass: each entry the walk lstat()s is looked up among the files that
 * processes hold (one Map lookup), so a process inside a tree by identity is found without a
 * second walk and without keeping anything per entry. A deleting pass also keeps each tree's
 * inodes (8 bytes an entry) until the plan is made; report-only passes keep none.
 */
export class WalkWatch {
  private readonly trees = new Map<string, TreeRecord>();

  constructor(
    private readonly held: IdentityIndex,
    private readonly keepInodes: boolean,
  ) {}

  visitorFor(root: string): EntryVisitor {
    const record: TreeRecord = { dev: -1, pids: null, inodes: this.keepInodes ? new Float64Array(64) : null, count: 0 };
    this.trees.set(root, record);
    const held = this.held;
    return (entry: EntryIdentity) => {
      const holders = held.holdersOf(entry.dev, entry.ino);
      if (holders) {
        record.pids ??= new Set();
        for (const pid of holders) record.pids.add(pid);
      }
      if (record.inodes) keepInode(record, entry);
    };
  }

  /** The pids holding something inside the tree walked from `root`, by identity. */
  pidsInside(root: string): number[] {
    const pids = this.trees.get(root)?.pids;
    return pids ? [...pids].sort((a, b) => a - b) : [];
  }

  /** The inodes of the tree walked from `root`, when this pass keeps them. */
  inodesOf(root: string): TreeInodes | null {
    const record = this.trees.get(root);
    if (!record?.inodes) return null;
    return { dev: record.dev, inodes: record.inodes.slice(0, record.count) };
  }

  /** Forgets every tree (once the plan holds the inodes of what it deletes). */
  clear(): void {
    this.trees.clear();
  }
}

function keepInode(record: TreeRecord, entry: EntryIdentity): void {
  // The root comes first; an entry of another filesystem (a mount point: the tree is refused) is not kept.
  if (record.dev === -1) record.dev = entry.dev;
  else if (entry.dev !== record.dev) return;
  let inodes = record.inodes as Float64Array;
  if (record.count === inodes.length) {
    const grown = new Float64Array(inodes.length * 2);
    grown.set(inodes);
    record.inodes = grown;
    inodes = grown;
  }
  inodes[record.count] = entry.ino;
  record.count += 1;
}

/** The pids holding any of a tree's inodes, by a fresh look at /proc. */
export function pidsHoldingAny(held: IdentityIndex, tree: TreeInodes): number[] {
  const pids = new Set<number>();
  for (const ino of tree.inodes) {
    const holders = held.holdersOf(tree.dev, ino);
    if (holders) for (const pid of holders) pids.add(pid);
  }
  return [...pids].sort((a, b) => a - b);
}
