import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { lstatOrNullSync } from '../fs/stat.js';
import { ENTRY_FORMAT, FindRecords } from './find-records.js';
import type { EntryIdentity, EntryVisitor, TreeFacts } from './walk.js';

/**
 * One batch: find over its roots (`-P`: no link followed; `-xdev`: no other filesystem entered),
 * then `E<status> <roots>`.
 */
const BATCH_SCRIPT = [
  `find -P "$@" -xdev \\( -name .git -printf g -o -true \\) -printf '${ENTRY_FORMAT}'`,
  'printf \'E%d %d\\n\' "$?" "$#"',
].join('\n');

/**
 * Every batch in turn (xargs reads the roots from stdin, NUL-separated, as many to a batch as fit),
 * then `X<status>`; every message goes to the same stream as the records (`2>&1`), in order.
 */
const WALKER_SCRIPT = 'exec 2>&1; xargs -r -0 sh -c "$1" sh; printf \'X%d\\n\' "$?"';

export interface FindWalkOptions {
  /** Gives each tree find walks its entry visitor. */
  visitorFor?: (root: string) => EntryVisitor;
  /** Told of each tree find has walked clean, as it comes. */
  onFound: (root: string, facts: TreeFacts) => void;
  /** Told whenever the walker moves on (a tree, a batch, its end), for those waiting on it. */
  onProgress: () => void;
  /** The walker's environment (its PATH finds sh, xargs and find). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Walks folder trees in GNU find, a C walker in a process of its own, so that it runs on another
 * CPU while this process does the rest of the pass. Its output is read as this process's event
 * loop turns, and each tree find walked clean (see FindRecords) is handed on as it comes. Every
 * other tree is left to the caller's own walk, as is every tree when the walker cannot start.
 */
export class FindWalk {
  private readonly records: FindRecords;
  /** Roots given to find and not yet handed on or taken back, by their place in its list. */
  private readonly planned = new Map<string, number>();
  private readonly child: ChildProcess;
  /** Roots from here on have been taken back (from the end, while the caller waited). */
  private takenFrom: number;

  private constructor(
    private readonly roots: readonly string[],
    identities: readonly EntryIdentity[],
    options: FindWalkOptions,
  ) {
    const { visitorFor } = options;
    for (const [at, root] of roots.entries()) this.planned.set(root, at);
    this.takenFrom = roots.length;
    this.records = new FindRecords(roots, identities, {
      // A root taken back is seen by the caller's own walk alone.
      ...(visitorFor ? { visitorFor: (root) => (this.planned.has(root) ? visitorFor(root) : undefined) } : {}),
      found: (root, facts, ownWalk) => {
        // A nested repository's paths, and the entry of another owner, come only from a walk of
        // our own (names are bytes).
        if (this.planned.delete(root) && !ownWalk) options.onFound(root, facts);
      },
    });
    this.child = spawn('sh', ['-c', WALKER_SCRIPT, 'sh', BATCH_SCRIPT], {
      stdio: ['pipe', 'pipe', 'ignore'],
      // A group of its own, so that stopping it reaches xargs and find.
      detached: true,
      env: { PATH: options.env?.PATH ?? process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    });
    const end = (): void => {
      this.records.ended = true;
      this.planned.clear();
      options.onProgress();
    };
    this.child.on('error', end);
    this.child.on('close', end);
    this.child.stdin?.on('error', () => {
      // A walker that stopped early no longer reads its list.
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      if (this.records.ended) return;
      this.records.feed(chunk);
      // Done, failed, or past every root still left to it: the rest of its work would be dropped.
      const past = this.records.reached > this.takenFrom || this.records.settled >= this.takenFrom;
      if (this.records.tainted || this.records.ended || this.planned.size === 0 || past) this.stop();
      options.onProgress();
    });
    this.child.stdin?.end(Buffer.from(`${roots.join('\0')}\0`));
    this.child.unref();
  }

  /**
   * Starts walking the folders among `roots` (absolute, well-formed paths to folders; anything else
   * is left out), in their order. Null when there is none.
   */
  static start(roots: readonly string[], options: FindWalkOptions): FindWalk | null {
    const walked: string[] = [];
    const identities: EntryIdentity[] = [];
    for (const root of new Set(roots)) {
      const identity = walkableFolder(root);
      if (identity) {
        walked.push(root);
        identities.push(identity);
      }
    }
    return walked.length === 0 ? null : new FindWalk(walked, identities, options);
  }

  /** Whether the walker has ended, failed or been stopped. */
  get done(): boolean {
    return this.records.ended;
  }

  /** Whether find may still hand `root` on: it was given it, and has neither walked it nor failed yet. */
  pending(root: string): boolean {
    const at = this.planned.get(root);
    return at !== undefined && !this.records.tainted && !this.records.ended && at >= this.records.settled;
  }

  /**
   * Takes back the last root find has not started on, for the caller to walk while it waits for
   * `awaited` (none of which is taken). Undefined when there is none: find is about to reach them.
   */
  takeLast(awaited: readonly string[]): string | undefined {
    let after = this.records.reached;
    for (const root of awaited) after = Math.max(after, this.planned.get(root) ?? -1);
    while (this.takenFrom - 1 > after) {
      this.takenFrom -= 1;
      const root = this.roots[this.takenFrom] as string;
      if (this.planned.has(root)) {
        this.release(root);
        return root;
      }
    }
    return undefined;
  }

  /** Takes `root` back: the caller walks it itself, and whatever find makes of it is dropped. */
  release(root: string): void {
    if (this.planned.delete(root) && this.planned.size === 0) this.stop();
  }

  /**
   * Stops the walker (and every find it started). Its group is signalled only while its leader is
   * not yet reaped: until then no other process can be given that group's number.
   */
  stop(): void {
    this.records.ended = true;
    this.planned.clear();
    this.child.stdout?.destroy();
    const { pid, exitCode, signalCode } = this.child;
    if (pid === undefined || exitCode !== null || signalCode !== null) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: the walker and its batches are gone already.
    }
  }
}

/** The identity of a root find can be given: an absolute, well-formed path to a folder. */
function walkableFolder(root: string): EntryIdentity | null {
  if (!path.isAbsolute(root) || !root.isWellFormed()) return null;
  try {
    const stats = lstatOrNullSync(root);
    return stats?.isDirectory() ? { dev: stats.dev, ino: stats.ino } : null;
  } catch {
    return null;
  }
}
