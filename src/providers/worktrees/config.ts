import * as z from 'zod';
import type { BuiltInSet } from '../../provider-api/provider.js';
import type { Provider } from '../../provider-api/provider.js';
import type { EffectiveConfig } from '../../config/schema.js';
import { duration, enabled, nonEmptyString, nonEmptyStrings } from '../../config/sections.js';

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

export type ConfiguredSet = z.output<typeof worktreeSet>;

/** The section once loaded: the built-in sets merged with the config's, each set whole. */
const completedSection = z.strictObject({
  enabled: z.boolean(),
  sets: z.array(
    z.strictObject({ name: nonEmptyString, roots: nonEmptyStrings, idleAfter: duration, enabled: z.boolean() }),
  ),
});

export type WorktreesSection = z.output<typeof completedSection>;

/** One set of worktree roots after the built-in sets and the config's are merged. */
export type WorktreeSetConfig = WorktreesSection['sets'][number];

/**
 * The settings of one worktree set as the config gives them, or null while the provider or the set
 * is off: what another provider that judges a set's worktrees with its own records (the Codex app's)
 * asks of this one, never reading its section itself.
 */
export function worktreeSetSettings(config: EffectiveConfig, name: string): { idleAfter: string } | null {
  const section = worktreesConfig(config);
  const set = section.enabled ? section.sets.find((each) => each.name === name) : undefined;
  return set?.enabled ? { idleAfter: set.idleAfter } : null;
}

/** This provider's section of a loaded config. */
export const worktreesConfig = (config: EffectiveConfig): WorktreesSection =>
  completedSection.parse(config.providers.worktrees);

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
