import type { ConfigureContext, Provider } from '../../provider-api/provider.js';
import { ConfigError } from '../../model/errors.js';
import {
  builtInSets,
  type ConfiguredSet,
  type WorktreeSetConfig,
  type WorktreesSection,
  worktreesSection,
} from './config.js';
import { findRootOverlap, yieldToConfiguredSets } from './overlap.js';
import { anchorNames, parseRoot } from './roots.js';

const DEFAULT_IDLE_AFTER = '3d';

/**
 * The section as the file gave it, completed: the built-in sets merged with the configured ones
 * (rule 16: a built-in set steps aside where the config's own sets say otherwise), and refused
 * where roots that two judges would still share are left, before anything is read.
 */
export function configureWorktrees(ctx: ConfigureContext): WorktreesSection {
  const parsed = worktreesSection.parse(ctx.config.providers.worktrees);
  const merged = { ...parsed, sets: mergeWorktreeSets(parsed.sets, ctx.registry, ctx.where) };
  const withMerged = (section: WorktreesSection) => ({
    ...ctx,
    config: { ...ctx.config, providers: { ...ctx.config.providers, worktrees: section } },
  });
  const configured = new Set(parsed.sets.map((set) => set.name));
  const section = { ...merged, sets: yieldToConfiguredSets(withMerged(merged), configured) };
  const overlap = findRootOverlap(withMerged(section));
  if (overlap) throw new ConfigError(`${ctx.where}: ${overlap}`);
  return section;
}

/**
 * The built-in sets, each overridden by a configured set of the same name (only in the keys it
 * gives), then the configured sets of other names, in their order. `where` names the file in errors.
 */
function mergeWorktreeSets(
  configured: readonly ConfiguredSet[],
  registry: readonly Provider[],
  where: string,
): WorktreeSetConfig[] {
  const builtIns = builtInSets(registry);
  const key = (index: number) => `providers.worktrees.sets[${index}]`;
  const byName = new Map<string, number>();
  configured.forEach((set, index) => {
    const earlier = byName.get(set.name);
    if (earlier !== undefined)
      throw new ConfigError(`${where}: ${key(index)}.name: set ${set.name} is already named by ${key(earlier)}`);
    byName.set(set.name, index);
  });

  const merged: WorktreeSetConfig[] = builtIns.map((builtIn) => {
    const index = byName.get(builtIn.name);
    const override = index === undefined ? undefined : configured[index];
    return {
      name: builtIn.name,
      roots: [...(override?.roots ?? builtIn.roots)],
      idleAfter: override?.idleAfter ?? builtIn.idleAfter,
      enabled: override?.enabled ?? true,
    };
  });
  configured.forEach((set, index) => {
    if (builtIns.some((builtIn) => builtIn.name === set.name)) return;
    if (!set.roots) {
      const names = builtIns.map((builtIn) => builtIn.name).join(', ');
      throw new ConfigError(
        `${where}: ${key(index)}.roots: set ${set.name} is not built in, so it needs roots (built-in sets: ${names})`,
      );
    }
    merged.push({
      name: set.name,
      roots: set.roots,
      idleAfter: set.idleAfter ?? DEFAULT_IDLE_AFTER,
      enabled: set.enabled ?? true,
    });
  });

  const anchors = anchorNames(registry);
  for (const set of merged) {
    set.roots.forEach((root, rootIndex) => {
      const parsed = parseRoot(root, anchors);
      if (parsed.kind !== 'invalid') return;
      const index = byName.get(set.name);
      const at = index === undefined ? `built-in set ${set.name}` : `${key(index)}.roots[${rootIndex}]`;
      throw new ConfigError(`${where}: ${at}: ${JSON.stringify(root)}: ${parsed.why}`);
    });
  }
  return merged;
}
