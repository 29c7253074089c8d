import { ConfigError } from '../core/errors.js';
import { BUILT_IN_SETS, builtInSet } from '../providers/worktrees/builtin-sets.js';
import { parseRoot } from '../providers/worktrees/roots.js';
import type { ParsedConfig, WorktreeSetConfig } from './schema.js';

type ConfiguredSet = ParsedConfig['providers']['worktrees']['sets'][number];

const DEFAULT_IDLE_AFTER = '3d';

/**
 * The built-in sets, each overridden by a configured set of the same name (only in the keys it
 * gives), then the configured sets of other names, in their order. `where` names the file in errors.
 */
export function mergeWorktreeSets(configured: readonly ConfiguredSet[], where: string): WorktreeSetConfig[] {
  const key = (index: number) => `providers.worktrees.sets[${index}]`;
  const byName = new Map<string, number>();
  configured.forEach((set, index) => {
    const earlier = byName.get(set.name);
    if (earlier !== undefined)
      throw new ConfigError(`${where}: ${key(index)}.name: set ${set.name} is already named by ${key(earlier)}`);
    byName.set(set.name, index);
  });

  const merged: WorktreeSetConfig[] = BUILT_IN_SETS.map((builtIn) => {
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
    if (builtInSet(set.name)) return;
    if (!set.roots) {
      const names = BUILT_IN_SETS.map((builtIn) => builtIn.name).join(', ');
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

  for (const set of merged) {
    set.roots.forEach((root, rootIndex) => {
      const parsed = parseRoot(root);
      if (parsed.kind !== 'invalid') return;
      const index = byName.get(set.name);
      const at = index === undefined ? `built-in set ${set.name}` : `${key(index)}.roots[${rootIndex}]`;
      throw new ConfigError(`${where}: ${at}: ${JSON.stringify(root)}: ${parsed.why}`);
    });
  }
  return merged;
}
