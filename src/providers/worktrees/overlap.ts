import path from 'node:path';
import { patternsOverlap } from '../../config/glob-overlap.js';
import { kiloLocations, snapshotRoot } from '../kilo/layout.js';
import { owlDataDirs } from '../owl/layout.js';
import { watchfireRoots } from '../watchfire/layout.js';
import type { WorktreeSetConfig } from '../../config/schema.js';
import { staticBases, type SetContext } from './anchors.js';
import { builtInSet } from './builtin-sets.js';
import { parseRoot } from './roots.js';

/** A folder whose contents another provider judges: no set root may lie in it or hold it. */
export interface ClaimedFolder {
  /** The provider, as the overlap messages of the pass name it. */
  owner: 'owl' | 'kilo' | 'watchfire';
  folder: string;
  /** Whose, in words: "Owl's job worktrees". */
  whose: string;
}

/** Every folder the enabled providers other than `worktrees` judge the contents of. */
export function claimedFolders(ctx: SetContext): ClaimedFolder[] {
  const providers = ctx.config.providers;
  const claimed: ClaimedFolder[] = [];
  if (providers.owl.enabled)
    for (const data of owlDataDirs(ctx)) {
      claimed.push({ owner: 'owl', folder: path.join(data, 'worktrees'), whose: "Coding Owl's job worktrees" });
      claimed.push({
        owner: 'owl',
        folder: path.join(data, 'worktree-config'),
        whose: "Coding Owl's worktree configs",
      });
    }
  if (providers.kilo.enabled)
    for (const location of kiloLocations(ctx))
      claimed.push({
        owner: 'kilo',
        folder: snapshotRoot(location.dataDir),
        whose: `${location.app === 'opencode' ? "opencode's" : location.app === 'kilo' ? "Kilo Code's" : 'the'} checkpoint repositories`,
      });
  if (providers.watchfire.enabled)
    for (const root of watchfireRoots(ctx))
      claimed.push({ owner: 'watchfire', folder: root, whose: "Watchfire's agent homes" });
  return claimed;
}

/** The patterns a root stands for, one per home (or data folder); none for a state anchor. */
function patternsOf(root: string, ctx: SetContext): string[] {
  const start = parseRoot(root);
  if (start.kind === 'invalid') return [];
  return (staticBases(start, ctx) ?? []).map(({ base, rest }) => path.join(base, rest));
}

/**
 * A set the config names wins over a built-in set it does not name: each root of that built-in set
 * which overlaps a root of a configured set steps aside, and a built-in set left with none is off.
 * A config written before the built-in sets existed (its own set for claude-squad's folder, say)
 * keeps working, with one judge per tree.
 */
export function yieldToConfiguredSets(ctx: SetContext, configured: ReadonlySet<string>): WorktreeSetConfig[] {
  const sets = ctx.config.providers.worktrees.sets;
  const theirs = sets
    .filter((set) => set.enabled && configured.has(set.name))
    .flatMap((set) => set.roots.flatMap((root) => patternsOf(root, ctx)));
  return sets.map((set) => {
    if (!builtInSet(set.name) || configured.has(set.name) || !set.enabled) return set;
    const kept = set.roots.filter(
      (root) => !patternsOf(root, ctx).some((mine) => theirs.some((pattern) => patternsOverlap(mine, pattern))),
    );
    if (kept.length === set.roots.length) return set;
    return kept.length === 0 ? { ...set, enabled: false } : { ...set, roots: kept };
  });
}

/** One enabled set's root as the config loader can see it: the text, and a pattern per home. */
interface SeenRoot {
  set: string;
  root: string;
  pattern: string;
}

/**
 * The first overlap the config shows between a set's root and another provider's folder, or the
 * roots of two sets (rule 16: one path, one judge), in words; null when there is none. Roots that
 * only a tool's state can name (`{claude-projects}`, `{kilo-projects}`) are checked while a pass
 * gathers instead. `homes` may be patterns here.
 */
export function findRootOverlap(ctx: SetContext): string | null {
  const seen: SeenRoot[] = [];
  for (const set of ctx.config.providers.worktrees.sets) {
    if (!set.enabled) continue;
    for (const root of set.roots) {
      for (const pattern of patternsOf(root, ctx)) seen.push({ set: set.name, root, pattern });
    }
  }
  // Worded as the pass words the overlaps it finds on disk, so both read alike.
  const describe = (entry: SeenRoot) =>
    `worktrees set ${entry.set} (${entry.root === entry.pattern ? entry.root : `${entry.root}, that is ${entry.pattern}`})`;
  const claimed = seen.length === 0 ? [] : claimedFolders(ctx);
  for (const entry of seen) {
    for (const folder of claimed) {
      if (patternsOverlap(entry.pattern, folder.folder))
        return `${describe(entry)} and ${folder.owner} (${folder.folder}, ${folder.whose}) overlap: both would judge the same folders; change the roots, or disable one of them`;
    }
  }
  for (const [index, entry] of seen.entries()) {
    for (const other of seen.slice(index + 1)) {
      if (other.set !== entry.set && patternsOverlap(entry.pattern, other.pattern))
        return `${describe(entry)} and ${describe(other)} overlap: both would judge the same folders; change the roots, or turn one of them off by name`;
    }
  }
  return null;
}
