import path from 'node:path';
import type { ClaimedFolder, SetContext } from '../../provider-api/provider.js';
import { patternsOverlap } from '../../config/glob-overlap.js';
import { staticBases } from './anchors.js';
import { builtInSets, worktreesConfig, type WorktreeSetConfig } from './config.js';
import { anchorNames, parseRoot } from './roots.js';

/** Every folder the enabled providers other than this one judge the contents of, as each names them. */
export function claimedFolders(ctx: SetContext): ClaimedFolder[] {
  return ctx.registry
    .filter((provider) => provider.name !== 'worktrees' && ctx.config.providers[provider.name]?.enabled)
    .flatMap((provider) => provider.claimedFolders?.(ctx) ?? []);
}

/** The patterns a root stands for, one per home (or data folder); none for a state anchor. */
function patternsOf(root: string, ctx: SetContext): string[] {
  const start = parseRoot(root, anchorNames(ctx.registry));
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
  const sets = worktreesConfig(ctx.config).sets;
  const builtIn = new Set(builtInSets(ctx.registry).map((set) => set.name));
  const theirs = sets
    .filter((set) => set.enabled && configured.has(set.name))
    .flatMap((set) => set.roots.flatMap((root) => patternsOf(root, ctx)));
  return sets.map((set) => {
    if (!builtIn.has(set.name) || configured.has(set.name) || !set.enabled) return set;
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
  for (const set of worktreesConfig(ctx.config).sets) {
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
      // A tool's own set gives way to its provider there (the pass leaves the folder to the provider).
      if (folder.yields === entry.set) continue;
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
