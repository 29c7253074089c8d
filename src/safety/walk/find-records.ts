import { FILE_TYPE, FOLDER_TYPE, isForeign } from '../owners/ownership.js';
import { largerFile, type EntryIdentity, type EntryVisitor, type TreeFacts } from './walk.js';

/**
 * GNU find's `-printf` format for one entry, read back by `FindRecords`: depth, type, device,
 * inode, size, owner's uid, permission bits (octal) and mtime (`%T@`, seconds and nine or more
 * fractional digits), one line each. A `.git` entry's line starts with `g`. No name is printed: a
 * name may hold any byte but `/` and NUL.
 */
export const ENTRY_FORMAT = '%d %y %D %i %s %U %m %T@\\n';

/** Told of each tree find has gone past with nothing out of place before it. */
export interface FoundTrees {
  /** The visitor that sees each entry of the tree walked from `root` (none: undefined). */
  visitorFor?: (root: string) => EntryVisitor | undefined;
  /**
   * A tree find walked clean. `ownWalk`: a `.git` below its top, or an entry of another owner
   * (rule 20), whose path only a walk of our own gives.
   */
  found(root: string, facts: TreeFacts, ownWalk: boolean): void;
}

interface TreeInProgress {
  root: string;
  facts: TreeFacts;
  dev: number;
  ownWalk: boolean;
  visit: EntryVisitor | undefined;
  /** The inodes of the folders on the way to the entry at hand: the one at depth k is at k - 1. */
  folders: number[];
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
const DOT = 0x2e;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const GIT_MARK = 0x67; // g
const BATCH_MARK = 0x45; // E
const END_MARK = 0x58; // X
const DIRECTORY = 0x64; // d
const REGULAR = 0x66; // f
const SEVEN = 0x37;
/** Digits a double holds exactly when summed one by one; a longer number goes through Number(). */
const EXACT_DIGITS = 15;

/**
 * Reads the walker's output (see find-walk.ts): each batch's entry lines, then `E<status> <roots>`;
 * after the last batch, `X<status>`. find's messages come in the same stream, and a name is never
 * printed (a message escapes the control characters of the names it quotes, and starts with the
 * program's name). A tree is handed on once find has moved past it (the next root's own line, or
 * its batch's end with status 0) with nothing out of place before: find reports every error through
 * error(3), which flushes the entry lines written before it, so a message about a tree always comes
 * ahead of the line that would hand the tree on. Each root's own line must carry the device and
 * inode its lstat showed before the walk began (`expected`), so that an entry is never counted to
 * another root. From the first line out of place (a message, a malformed or misplaced line, a
 * batch that did not end with status 0 having walked every root) nothing more is handed on.
 */
export class FindRecords {
  private carry: Buffer | null = null;
  private next = 0;
  private batch = 0;
  private tree: TreeInProgress | null = null;
  private field = 0;
  /** A line was out of place: nothing more is handed on. */
  tainted = false;
  /** The walker has ended (`X`), or its output can no longer be followed. */
  ended = false;

  constructor(
    private readonly roots: readonly string[],
    private readonly expected: readonly EntryIdentity[],
    private readonly trees: FoundTrees,
  ) {}

  /** How many roots have had their batch end (well or not). */
  get settled(): number {
    return this.next;
  }

  /** The place of the first root whose walk has not been seen to start. */
  get reached(): number {
    return this.next + this.batch;
  }

  /** Takes the next bytes of output; a line cut at the end of `chunk` waits for the rest. */
  feed(chunk: Buffer): void {
    let data = chunk;
    if (this.carry) {
      data = Buffer.concat([this.carry, chunk]);
      this.carry = null;
    }
    let start = 0;
    for (;;) {
      const end = data.indexOf(NEWLINE, start);
      if (end === -1) break;
      if (!this.ended) this.line(data, start, end);
      start = end + 1;
    }
    if (start < data.length) this.carry = Buffer.from(data.subarray(start));
  }

  private line(data: Buffer, start: number, end: number): void {
    const first = data[start];
    if (first === BATCH_MARK) this.endBatch(data, start + 1, end);
    else if (first === END_MARK) this.ended = true;
    else if (!this.tainted) this.entry(data, start, end);
  }

  private entry(data: Buffer, start: number, end: number): void {
    const gitName = data[start] === GIT_MARK;
    this.field = gitName ? start + 1 : start;
    const depth = this.number(data, end);
    const type = this.type(data, end);
    const dev = this.number(data, end);
    const ino = this.number(data, end);
    const size = this.number(data, end);
    const uid = this.number(data, end);
    const permissions = this.octal(data, end);
    const mtimeMs = this.time(data, end);
    if (Number.isNaN(depth + type + dev + ino + size + uid + permissions + mtimeMs) || this.field !== end + 1) {
      this.tainted = true;
      return;
    }
    const mode = permissions | (type === DIRECTORY ? FOLDER_TYPE : type === REGULAR ? FILE_TYPE : 0);
    if (depth === 0) {
      this.openTree(type === DIRECTORY, dev, ino, size, mtimeMs, { uid, mode });
      return;
    }
    const tree = this.tree;
    if (!tree) {
      this.tainted = true;
      return;
    }
    tree.visit?.({ dev, ino });
    const { facts } = tree;
    facts.entries += 1;
    // Depth 1 is the tree's own repository; further down is a repository of its own.
    if (gitName && depth > 1) tree.ownWalk = true;
    if (isForeign(facts.uid, uid, mode)) tree.ownWalk = true;
    if (mtimeMs > facts.newestWriteMs) facts.newestWriteMs = mtimeMs;
    if (type !== DIRECTORY) {
      facts.bytes += size;
      facts.files += 1;
      // find lists a folder before what is in it: the folders on the way are the last one listed at each depth.
      if (largerFile({ bytes: size, dev, ino }, facts.largest))
        facts.largest = { bytes: size, dev, ino, trail: tree.folders.slice(0, depth - 1) };
      if (facts.newestFileWriteMs === null || mtimeMs > facts.newestFileWriteMs) facts.newestFileWriteMs = mtimeMs;
    } else {
      tree.folders.length = depth - 1;
      tree.folders.push(ino);
      if (dev !== tree.dev) facts.mountInside = true;
    }
  }

  private openTree(
    isDirectory: boolean,
    dev: number,
    ino: number,
    size: number,
    mtimeMs: number,
    owner: { uid: number; mode: number },
  ): void {
    this.handOn();
    const at = this.next + this.batch;
    const root = this.roots[at];
    const expected = this.expected[at];
    if (root === undefined || expected?.dev !== dev || expected.ino !== ino) {
      this.tainted = true;
      return;
    }
    this.batch += 1;
    const visit = this.trees.visitorFor?.(root);
    visit?.({ dev, ino });
    const facts: TreeFacts = {
      bytes: isDirectory ? 0 : size,
      files: isDirectory ? 0 : 1,
      largest: isDirectory ? null : { bytes: size, dev, ino, trail: [] },
      newestWriteMs: mtimeMs,
      newestFileWriteMs: isDirectory ? null : mtimeMs,
      entries: 0,
      mountInside: false,
      nestedGit: { count: 0, paths: [] },
      uid: owner.uid,
      dev,
      ino,
    };
    this.tree = { root, facts, dev, ownWalk: isForeign(owner.uid, owner.uid, owner.mode), visit, folders: [] };
  }

  /** The tree find has just moved past, when its batch is still clean. */
  private handOn(): void {
    const tree = this.tree;
    this.tree = null;
    if (tree && !this.tainted) this.trees.found(tree.root, tree.facts, tree.ownWalk);
  }

  private endBatch(data: Buffer, start: number, end: number): void {
    const match = /^(\d+) (\d+)$/.exec(data.toString('latin1', start, end));
    if (!match) {
      this.ended = true;
      return;
    }
    const count = Number(match[2]);
    if (match[1] !== '0' || this.batch !== count) this.tainted = true;
    this.handOn();
    this.next += count;
    this.batch = 0;
  }

  /** The digits at the cursor and the space after them; NaN when there are none. */
  private number(data: Buffer, end: number): number {
    const from = this.field;
    let value = 0;
    let at = from;
    while (at < end) {
      const byte = data[at] as number;
      if (byte < ZERO || byte > NINE) break;
      value = value * 10 + (byte - ZERO);
      at += 1;
    }
    if (at === from || data[at] !== SPACE) return Number.NaN;
    this.field = at + 1;
    return at - from > EXACT_DIGITS ? Number(data.toString('latin1', from, at)) : value;
  }

  /** The octal digits at the cursor (`%m`) and the space after them; NaN when there are none. */
  private octal(data: Buffer, end: number): number {
    const from = this.field;
    let value = 0;
    let at = from;
    while (at < end && at - from < 6) {
      const byte = data[at] as number;
      if (byte < ZERO || byte > SEVEN) break;
      value = value * 8 + (byte - ZERO);
      at += 1;
    }
    if (at === from || data[at] !== SPACE) return Number.NaN;
    this.field = at + 1;
    return value;
  }

  private type(data: Buffer, end: number): number {
    const at = this.field;
    if (at + 1 >= end || data[at + 1] !== SPACE) return Number.NaN;
    this.field = at + 2;
    return data[at] as number;
  }

  /**
   * `%T@` as Node's `mtimeMs` has it: the whole seconds (negative before 1970, with the fraction
   * still counted forwards from them) times 1000, plus the nanoseconds over 10^6.
   */
  private time(data: Buffer, end: number): number {
    let at = this.field;
    const negative = data[at] === MINUS;
    if (negative) at += 1;
    const digitsFrom = at;
    let seconds = 0;
    while (at < end && (data[at] as number) >= ZERO && (data[at] as number) <= NINE) {
      seconds = seconds * 10 + ((data[at] as number) - ZERO);
      at += 1;
    }
    if (at === digitsFrom || at - digitsFrom > EXACT_DIGITS || data[at] !== DOT) return Number.NaN;
    at += 1;
    let nanoseconds = 0;
    let digits = 0;
    for (; at < end; at += 1) {
      const byte = data[at] as number;
      if (byte < ZERO || byte > NINE) return Number.NaN;
      if (digits < 9) nanoseconds = nanoseconds * 10 + (byte - ZERO);
      digits += 1;
    }
    if (digits === 0) return Number.NaN;
    for (; digits < 9; digits += 1) nanoseconds *= 10;
    this.field = end + 1;
    return (negative ? -seconds : seconds) * 1e3 + nanoseconds / 1e6;
  }
}
