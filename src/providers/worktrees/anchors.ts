import path from 'node:path';
import type { Anchor, SetContext, StateFolders } from '../../provider-api/provider.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import type { RootStart } from './roots.js';

/** A root's fixed part (a literal folder, or a pattern where the homes are) and the glob below it. */
export interface RootBase {
  base: string;
  rest: string;
  /** Whose the folders below it are (rule 20); absent for an absolute root, whose every folder has its own. */
  basis?: LocationBasis;
}

function anchorNamed(ctx: SetContext, name: string): Anchor | undefined {
  for (const provider of ctx.registry) {
    const found = provider.anchors?.find((anchor) => anchor.name === name);
    if (found) return found;
  }
  return undefined;
}

/**
 * The bases of a root that needs no tool state: the homes, the folders an anchor names from the
 * homes and the config. Null for an anchor only a tool's state resolves. With patterns for homes
 * (as the config loader has them), the bases are patterns too.
 */
export function staticBases(start: RootStart, ctx: SetContext): RootBase[] | null {
  if (start.kind === 'absolute') return [{ base: path.sep, rest: path.relative(path.sep, start.pattern) }];
  const rest = start.rest;
  if (start.kind === 'home')
    return ctx.homes.map((folder) => ({ base: path.resolve(folder), rest, basis: { home: path.resolve(folder) } }));
  const anchor = anchorNamed(ctx, start.anchor);
  if (!anchor || !('folders' in anchor)) return null;
  return anchor.folders(ctx).map(({ folder, basis }) => ({ base: folder, rest, basis }));
}

/** Reads the tool state behind the state anchors once per pass, whatever number of roots use them. */
export class StateAnchors {
  private readonly cache = new Map<string, Promise<StateFolders>>();

  constructor(private readonly ctx: SetContext) {}

  /** The bases of a state anchor, the state files that could not be read, and those missing beside the tool's data. */
  async bases(start: Extract<RootStart, { kind: 'anchor' }>): Promise<{
    bases: RootBase[];
    problems: StateFolders['problems'];
    warnings: NonNullable<StateFolders['warnings']>;
  }> {
    const folders = await this.folders(start.anchor);
    return {
      bases: folders.repos.map((repo) => ({ base: repo.path, rest: start.rest, basis: repo.basis })),
      problems: folders.problems,
      warnings: folders.warnings ?? [],
    };
  }

  private folders(name: string): Promise<StateFolders> {
    let found = this.cache.get(name);
    if (!found) {
      const anchor = anchorNamed(this.ctx, name);
      found =
        anchor && 'fromState' in anchor ? anchor.fromState(this.ctx) : Promise.resolve({ repos: [], problems: [] });
      this.cache.set(name, found);
    }
    return found;
  }
}
