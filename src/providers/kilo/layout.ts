import { kiloConfig } from './config.js';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import { basisOf, type LocationBasis } from '../../safety/owners/location-basis.js';

export type KiloApp = 'kilo' | 'opencode';

/** The app a data folder belongs to, as people call it; one of unknown app may be either. */
export function appName(app: KiloApp | null): string {
  if (app === 'kilo') return 'Kilo Code';
  if (app === 'opencode') return 'opencode';
  return 'Kilo Code or opencode';
}

/** One Kilo (or opencode) installation: where its data and its locks live. */
export interface KiloLocation {
  /** The app whose folders these are, or null for a `dataDir` named outright in the config. */
  app: KiloApp | null;
  dataDir: string;
  /** `<state>`: Kilo's lock folder is `<state>/locks`. Null when it cannot be known. */
  stateDir: string | null;
  /** Why the location cannot be reconciled (a config mistake), if it cannot. */
  problem?: string;
  /** A database named by the environment (`$KILO_DB`), beside the ones found in the data folder. */
  extraDatabase?: string;
  /** Whose these folders are: the home they are in or derived from, else outside every home (rule 20). */
  basis: LocationBasis;
}

export const sha1hex = (text: string): string => createHash('sha1').update(text).digest('hex');

/** `<data>/snapshot`: every checkpoint repository is inside it (the containment root). */
/**
 * Whether the app guards its checkpoint repositories with the `snapshot:<gitdir>` lock: Kilo Code
 * does; opencode has none (its locks/ holds other keys only). An unknown app is taken to lock.
 */
export const usesSnapshotLock = (app: KiloApp | null): boolean => app !== 'opencode';

export const snapshotRoot = (dataDir: string): string => path.join(dataDir, 'snapshot');

/** The directory lock Kilo takes around every snapshot and materialization of `gitdir`. */
export const lockDirectory = (stateDir: string, gitdir: string): string =>
  path.join(stateDir, 'locks', `${sha1hex(`snapshot:${gitdir}`)}.lock`);

/** The ref that pins a seeded repository's borrowed tree in its owner repository. */
export const materializePin = (gitdir: string): string => `refs/kilo/materialize/${sha1hex(path.resolve(gitdir))}`;

export const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const WORKTREE_HASH = /^[0-9a-f]{40}$/;

/**
 * Every place this pass looks for Kilo and opencode data. From the config's `dataDir`/`stateDir`
 * lists (paired by index) when it names them, else from every home and app.
 */
export function kiloLocations(ctx: Pick<GatherContext, 'config' | 'homes' | 'env'>): KiloLocation[] {
  const section = kiloConfig(ctx.config);
  if (section.dataDir) return namedLocations(section.dataDir, section.stateDir, ctx.homes);
  if (section.stateDir) {
    return section.stateDir.map((stateDir) => ({
      app: null,
      dataDir: path.resolve(stateDir),
      stateDir: null,
      problem: 'providers.kilo.stateDir is set without providers.kilo.dataDir; name both, paired by index',
      basis: basisOf(stateDir, ctx.homes),
    }));
  }
  const locations: KiloLocation[] = [];
  for (const home of ctx.homes) {
    for (const app of section.apps) locations.push(homeLocation(path.resolve(home), app, ctx.env));
  }
  return locations;
}

function homeLocation(home: string, app: KiloApp, env: NodeJS.ProcessEnv): KiloLocation {
  // The environment's XDG variables describe the current user's own home, no other.
  const own = env.HOME !== undefined && env.HOME !== '' && path.resolve(env.HOME) === home;
  const dataHome = own && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(home, '.local', 'share');
  const stateHome = own && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  const dataDir = path.join(dataHome, app);
  const location: KiloLocation = { app, dataDir, stateDir: path.join(stateHome, app), basis: { home } };
  const named = own ? (app === 'kilo' ? env.KILO_DB : env.OPENCODE_DB) : undefined;
  if (named && named !== ':memory:')
    location.extraDatabase = path.isAbsolute(named) ? named : path.join(dataDir, named);
  return location;
}

function namedLocations(dataDirs: string[], stateDirs: string[] | undefined, homes: readonly string[]): KiloLocation[] {
  if (stateDirs && stateDirs.length !== dataDirs.length) {
    const problem = `providers.kilo.stateDir has ${stateDirs.length} entries but providers.kilo.dataDir has ${dataDirs.length}; they pair by index`;
    return dataDirs.map((dataDir) => ({
      app: null,
      dataDir: path.resolve(dataDir),
      stateDir: null,
      problem,
      basis: basisOf(dataDir, homes),
    }));
  }
  return dataDirs.map((raw, index) => {
    const dataDir = path.resolve(raw);
    const given = stateDirs?.[index];
    const stateDir = given ? path.resolve(given) : siblingStateDir(dataDir);
    const location: KiloLocation = { app: appOf(dataDir), dataDir, stateDir, basis: basisOf(dataDir, homes) };
    if (!stateDir) {
      location.problem = `providers.kilo.stateDir is not set and cannot be derived from ${dataDir} (not a …/share/<app> folder); the snapshot lock folder must be known before anything is deleted`;
    }
    return location;
  });
}

/** `…/share/<app>` has its state in `…/state/<app>`, as the XDG layout puts them. */
function siblingStateDir(dataDir: string): string | null {
  const parent = path.dirname(dataDir);
  if (path.basename(parent) !== 'share') return null;
  return path.join(path.dirname(parent), 'state', path.basename(dataDir));
}

function appOf(dataDir: string): KiloApp | null {
  const name = path.basename(dataDir);
  return name === 'kilo' || name === 'opencode' ? name : null;
}

function isAbsolute(value: string | undefined): value is string {
  return value !== undefined && value !== '' && path.isAbsolute(value);
}

export type ManagedPlace =
  | { kind: 'repo'; owner: string; folder: '.kilo' | '.kilocode' }
  | { kind: 'data'; projectId: string };

/**
 * Where a worktree path says it was made by Kilo: `<R>/.kilo/worktrees/<name>` (or the legacy
 * `.kilocode`), owned by R; or `<data>/worktree/<project-id>/<name>`, whose owner is the project's
 * row in the database. Null for a worktree made anywhere else.
 */
export function managedPlace(worktree: string, dataDir: string): ManagedPlace | null {
  const parent = path.dirname(worktree);
  const grand = path.dirname(parent);
  if (path.basename(parent) === 'worktrees') {
    const folder = path.basename(grand);
    if (folder === '.kilo' || folder === '.kilocode') return { kind: 'repo', owner: path.dirname(grand), folder };
  }
  if (path.resolve(grand) === path.resolve(dataDir, 'worktree') && PROJECT_ID.test(path.basename(parent))) {
    return { kind: 'data', projectId: path.basename(parent) };
  }
  return null;
}
