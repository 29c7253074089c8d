import * as z from 'zod';
import { ConfigError } from '../../core/errors.js';
import type { BuiltInSet } from '../../core/contributions.js';
import type { ConfigureContext, Provider } from '../../core/types.js';
import type { EffectiveConfig } from '../../config/schema.js';
import { duration, enabled, nonEmptyString, nonEmptyStrings } from '../../config/sections.js';
import { findRootOverlap, yieldToConfiguredSets } from './overlap.js';
import { anchorNames, parseRoot } from './roots.js';

// Every key but the name is optional here: a set named like a built-in one overrides only what it
// says (mergeWorktreeSets below merges them and requires roots of any other set).
const worktreeSet = z.strictObject({
  name: nonEmptyString,
  roots: nonEmptyStrings.optional(),
  idleAfter: duration.optional(),
  enabled: z.boolean().optional(),
});

/** `providers.worktrees` of the config file, with its defaults. */
export const worktreesSection = z.strictObject({ enabled, sets: z.array(worktreeSet).default(() => []) }).prefault({});

type ConfiguredSet = z.output<typeof worktreeSet>;

/** One set of worktree roots after the built-in sets and the config's are merged. */
export interface WorktreeSetConfig {
  name: string;
  roots: string[];
  idleAfter: string;
  enabled: boolean;
}

/** The section once loaded: the built-in sets merged with the config's. */
export interface WorktreesSection {
  enabled: boolean;
  sets: WorktreeSetConfig[];
}

/** This provider's section of a loaded config. */
export const worktreesConfig = (config: EffectiveConfig): WorktreesSection =>
  config.providers.worktrees as WorktreesSection;

const DEFAULT_IDLE_AFTER = '3d';

/**
 * Every built-in set: this provider's own (tools without a provider), then each other provider's
 * sets for its tool, in the registry's order (a set that names the set it is listed before goes
 * there). The order decides which set keeps a root that a tool's state names for two of them.
 */
export function builtInSets(registry: readonly Provider[]): BuiltInSet[] {
  const sets = [
    ...registry.filter((provider) => provider.name === 'worktrees').flatMap((provider) => provider.worktreeSets ?? []),
    ...registry.filter((provider) => provider.name !== 'worktrees').flatMap((provider) => provider.worktreeSets ?? []),
  ];
  // A set that names the set it comes before takes that place, once that set is placed itself.
  const placed = sets.filter((set) => set.before === undefined || !sets.some((other) => other.name === set.before));
  let waiting = sets.filter((set) => !placed.includes(set));
  while (waiting.length > 0) {
    const ready = waiting.filter((set) => placed.some((other) => other.name === set.before));
    // Sets that name each other in a ring keep the registry's order, at the end.
    if (ready.length === 0) return [...placed, ...waiting];
    for (const set of ready)
      placed.splice(
        placed.findIndex((other) => other.name === set.before),
        0,
        set,
      );
    waiting = waiting.filter((set) => !ready.includes(set));
  }
  return placed;
}

/**
 * The section as the file gave it, completed: the built-in sets merged with the configured ones
 * (rule 16: a built-in set steps aside where the config's own sets say otherwise), and refused
 * where roots that two judges would still share are left, before anything is read.
 */
export function configureWorktrees(ctx: ConfigureContext): WorktreesSection {
  const parsed = ctx.config.providers.worktrees as { enabled: boolean; sets: ConfiguredSet[] };
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
