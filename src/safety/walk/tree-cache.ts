import { FindWalk } from './find-walk.js';
import { measureTree, type EntryVisitor, type TreeFacts } from './walk.js';

/**
 * Fewer roots than this are walked here: a walker costs four processes and its start (about 50 ms
 * of another CPU), more than a few dozen small trees take to walk.
 */
const WALK_AHEAD_MINIMUM = 64;
/** Walkers at once (each sh, xargs, sh and find): a small host has two CPUs, and this process needs one. */
const WALKERS_AT_ONCE = 2;

/** A pass's walks: each tree walked once, and the trees it will ask for walked ahead, beside it. */
export interface TreeCache {
  /** The tree's facts: walked ahead, walked before, or walked here now. */
  (root: string): TreeFacts;
  /**
   * Starts walking these trees beside this process (see find-walk.ts), for a caller that will ask
   * for them in about this order. The ones already walked or on their way are left out, and
   * nothing starts while two walkers are still at work: those trees are walked here.
   */
  ahead(roots: readonly string[]): void;
  /**
   * Resolves once asking for any of `roots` would not take a tree away from the walk ahead: each
   * has been walked, or the walker will not walk it. Waiting lets this process do other work.
   */
  whenMeasured(roots: readonly string[]): Promise<void>;
  /** Stops any walk still running ahead. */
  close(): void;
  /** The facts of a tree walked already, without walking it. */
  peek(root: string): TreeFacts | undefined;
}

export interface TreeCacheOptions {
  /** Gives each walk its entry visitor. */
  visitorFor?: (root: string) => EntryVisitor;
  /** Whether trees are walked ahead at all (a pass's cache does; a one-off re-check does not). */
  walkAhead?: boolean;
  /** Fewer roots than this are not walked ahead. */
  aheadMinimum?: number;
  env?: NodeJS.ProcessEnv;
}

export function createTreeCache(options: TreeCacheOptions = {}): TreeCache {
  const { visitorFor, env } = options;
  const cache = new Map<string, TreeFacts>();
  const walkers: FindWalk[] = [];
  let waiting: Array<() => void> = [];
  const progressed = (): void => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  const pending = (root: string): boolean => !cache.has(root) && walkers.some((walker) => walker.pending(root));

  const measure = (root: string): TreeFacts => {
    let facts = cache.get(root);
    if (facts) return facts;
    for (const walker of walkers) walker.release(root);
    facts = measureTree(root, visitorFor?.(root));
    cache.set(root, facts);
    return facts;
  };
  measure.ahead = (roots: readonly string[]): void => {
    if (!options.walkAhead) return;
    const unwalked = roots.filter((root) => !cache.has(root) && !pending(root));
    if (unwalked.length < (options.aheadMinimum ?? WALK_AHEAD_MINIMUM)) return;
    if (walkers.filter((walker) => !walker.done).length >= WALKERS_AT_ONCE) return;
    const walker = FindWalk.start(unwalked, {
      ...(visitorFor ? { visitorFor } : {}),
      ...(env ? { env } : {}),
      onFound: (root, facts) => {
        if (!cache.has(root)) cache.set(root, facts);
      },
      onProgress: progressed,
    });
    if (walker) walkers.push(walker);
  };
  measure.whenMeasured = async (roots: readonly string[]): Promise<void> => {
    while (roots.some(pending)) {
      // Rather than wait, this process walks the last tree a walker has not reached (one at a time).
      let taken: string | undefined;
      for (const walker of walkers) {
        taken = walker.takeLast(roots);
        if (taken !== undefined) break;
      }
      if (taken === undefined) await new Promise<void>((resolve) => waiting.push(resolve));
      else {
        measure(taken);
        // Lets find's output in before the next look.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  };
  measure.peek = (root: string): TreeFacts | undefined => cache.get(root);
  measure.close = (): void => {
    for (const walker of walkers.splice(0)) walker.stop();
    progressed();
  };
  return measure;
}
