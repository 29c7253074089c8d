import path from 'node:path';
import type { GatherContext } from '../../core/types.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import { kiloLocations, type KiloLocation } from '../kilo/layout.js';
import { claudeProjectRepos } from './claude-projects.js';
import { kiloProjectRepos } from './kilo-projects.js';
import type { RootStart } from './roots.js';
import type { StateFolders } from './state-folders.js';

export type SetContext = Pick<GatherContext, 'config' | 'homes' | 'env'>;

/** A root's fixed part (a literal folder, or a pattern where the homes are) and the glob below it. */
export interface RootBase {
  base: string;
  rest: string;
  /** Whose the folders below it are (rule 20); absent for an absolute root, whose every folder has its own. */
  basis?: LocationBasis;
}

const isOwnHome = (home: string, env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.HOME) && path.resolve(env.HOME as string) === path.resolve(home);

/** `$CODEX_HOME` describes the current user's own home; every other home has Codex's default. */
function codexHome(home: string, env: NodeJS.ProcessEnv): string {
  const named = env.CODEX_HOME;
  if (isOwnHome(home, env) && named && path.isAbsolute(named)) return path.resolve(named);
  return path.join(path.resolve(home), '.codex');
}

/**
 * The bases of a root that needs no tool state: the homes, `{codex-home}`, the data folders. Null
 * for an anchor only a tool's state resolves. With patterns for homes (as the config loader has
 * them), the bases are patterns too.
 */
export function staticBases(start: RootStart, ctx: SetContext): RootBase[] | null {
  if (start.kind === 'absolute') return [{ base: path.sep, rest: path.relative(path.sep, start.pattern) }];
  const rest = start.rest;
  const home = (folder: string): LocationBasis => ({ home: path.resolve(folder) });
  if (start.kind === 'home')
    return ctx.homes.map((folder) => ({ base: path.resolve(folder), rest, basis: home(folder) }));
  switch (start.anchor) {
    case 'codex-home':
      return ctx.homes.map((folder) => ({ base: codexHome(folder, ctx.env), rest, basis: home(folder) }));
    case 'opencode-data':
      return dataDirs(ctx, 'opencode').map((location) => ({ base: location.dataDir, rest, basis: location.basis }));
    case 'kilo-data':
      return dataDirs(ctx, 'kilo').map((location) => ({ base: location.dataDir, rest, basis: location.basis }));
    default:
      return null;
  }
}

/** opencode's or Kilo's data folders, as the kilo provider finds them (a folder of unknown app counts as Kilo's). */
function dataDirs(ctx: SetContext, app: 'kilo' | 'opencode'): KiloLocation[] {
  return kiloLocations(ctx).filter((location) => (location.app ?? 'kilo') === app);
}

/** Reads the tool state behind the state anchors once per pass, whatever number of roots use them. */
export class StateAnchors {
  private readonly cache = new Map<string, Promise<StateFolders>>();

  constructor(private readonly ctx: SetContext) {}

  /** The bases of a state anchor, and the state files that could not be read. */
  async bases(
    start: Extract<RootStart, { kind: 'anchor' }>,
  ): Promise<{ bases: RootBase[]; problems: StateFolders['problems'] }> {
    const folders = await this.folders(start.anchor);
    return {
      bases: folders.repos.map((repo) => ({ base: repo.path, rest: start.rest, basis: repo.basis })),
      problems: folders.problems,
    };
  }

  private folders(anchor: string): Promise<StateFolders> {
    let found = this.cache.get(anchor);
    if (!found) {
      found = anchor === 'claude-projects' ? this.claude() : kiloProjectRepos(this.ctx);
      this.cache.set(anchor, found);
    }
    return found;
  }

  private async claude(): Promise<StateFolders> {
    const all: StateFolders = { repos: [], problems: [] };
    const seen = new Set<string>();
    for (const home of this.ctx.homes) {
      const found = await claudeProjectRepos(home, this.ctx.env);
      // A repository two homes' states name is judged as the first home's (its own check refuses another's).
      for (const repo of found.repos) {
        if (seen.has(repo.path)) continue;
        seen.add(repo.path);
        all.repos.push(repo);
      }
      all.problems.push(...found.problems);
    }
    return all;
  }
}
