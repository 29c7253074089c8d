import { owlConfig } from './config.js';
import os from 'node:os';
import path from 'node:path';
import type { ClaimContext } from '../../provider-api/provider.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { homeOwner } from '../../safety/owners/locations.js';
import { basisOf, type LocationBasis } from '../../safety/owners/location-basis.js';

/** Where one Coding Owl installation keeps its things. */
export interface OwlLocation {
  /** `<home>/.local/share/coding-owl`: owl.db, worktrees/, worktree-config/. */
  data: string;
  /** `<home>/.local/state/coding-owl`, where owld.sock lives; null when unknown. */
  state: string | null;
  /** `<home>/.config/coding-owl/config.yaml`; null when unknown. */
  configFile: string | null;
  /** Every socket path at which a live daemon would accept a connection. */
  sockets: string[];
  /** Whose these folders are: the home they are in or derived from, else outside every home (rule 20). */
  basis: LocationBasis;
}

export const owlDb = (loc: OwlLocation): string => path.join(loc.data, 'owl.db');
export const owlWorktrees = (loc: OwlLocation): string => path.join(loc.data, 'worktrees');
export const owlWorktreeConfigs = (loc: OwlLocation): string => path.join(loc.data, 'worktree-config');

const SOCKET = 'owld.sock';

/**
 * Owl's locations for every home, or the ones the config names outright (`dataDir`, `stateDir`,
 * paired by position). For the current user's own home the XDG variables of the environment count.
 */
export async function owlLocations(ctx: ClaimContext): Promise<OwlLocation[]> {
  const section = owlConfig(ctx.config);
  if (section.dataDir) return explicitLocations(section.dataDir, section.stateDir ?? [], ctx);
  const own = path.resolve(ctx.env.HOME || os.homedir());
  const found: OwlLocation[] = [];
  for (const home of ctx.homes) {
    found.push(
      path.resolve(home) === own ? ownHomeLocation(own, ctx.env) : await otherHomeLocation(path.resolve(home)),
    );
  }
  return found;
}

/**
 * Owl's data folders alone, without touching the disk: what other judges must keep out of (a
 * worktree set, say). The same places as owlLocations.
 */
export function owlDataDirs(ctx: Pick<ClaimContext, 'config' | 'homes' | 'env'>): string[] {
  const section = owlConfig(ctx.config);
  if (section.dataDir) return section.dataDir.map((dataDir) => path.resolve(dataDir));
  const own = path.resolve(ctx.env.HOME || os.homedir());
  return ctx.homes.map((home) =>
    path.resolve(home) === own
      ? path.join(xdg(ctx.env, 'XDG_DATA_HOME', path.join(own, '.local', 'share')), 'coding-owl')
      : path.join(path.resolve(home), '.local', 'share', 'coding-owl'),
  );
}

function xdg(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name];
  return value && path.isAbsolute(value) ? value : fallback;
}

function ownHomeLocation(home: string, env: NodeJS.ProcessEnv): OwlLocation {
  const state = path.join(xdg(env, 'XDG_STATE_HOME', path.join(home, '.local', 'state')), 'coding-owl');
  const runtime =
    env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)
      ? path.join(env.XDG_RUNTIME_DIR, 'coding-owl', SOCKET)
      : null;
  return {
    data: path.join(xdg(env, 'XDG_DATA_HOME', path.join(home, '.local', 'share')), 'coding-owl'),
    state,
    configFile: path.join(xdg(env, 'XDG_CONFIG_HOME', path.join(home, '.config')), 'coding-owl', 'config.yaml'),
    sockets: runtime ? [runtime, path.join(state, SOCKET)] : [path.join(state, SOCKET)],
    basis: { home },
  };
}

async function otherHomeLocation(home: string): Promise<OwlLocation> {
  const state = path.join(home, '.local', 'state', 'coding-owl');
  const uid = homeOwner(home)?.uid;
  const sockets = [path.join(state, SOCKET)];
  if (uid !== undefined) sockets.push(`/run/user/${uid}/coding-owl/${SOCKET}`);
  return {
    data: path.join(home, '.local', 'share', 'coding-owl'),
    state,
    configFile: path.join(home, '.config', 'coding-owl', 'config.yaml'),
    sockets,
    basis: { home },
  };
}

async function explicitLocations(
  dataDirs: string[],
  stateDirs: string[],
  ctx: Pick<ClaimContext, 'homes' | 'env'>,
): Promise<OwlLocation[]> {
  const { env } = ctx;
  const found: OwlLocation[] = [];
  for (const [index, dataDir] of dataDirs.entries()) {
    const data = path.resolve(dataDir);
    const stateDir = stateDirs[index];
    // A data folder at the usual place inside a home tells where that home's config lives.
    const home = data.endsWith(path.join('.local', 'share', 'coding-owl'))
      ? path.resolve(data, '..', '..', '..')
      : null;
    const state = stateDir ? path.resolve(stateDir) : home ? path.join(home, '.local', 'state', 'coding-owl') : null;
    const sockets = state ? [path.join(state, SOCKET)] : [];
    const uid = (await lstatOrNull(data))?.uid;
    if (uid !== undefined && uid === process.getuid?.() && env.XDG_RUNTIME_DIR)
      sockets.push(path.join(env.XDG_RUNTIME_DIR, 'coding-owl', SOCKET));
    else if (uid !== undefined) sockets.push(`/run/user/${uid}/coding-owl/${SOCKET}`);
    found.push({
      data,
      state,
      configFile: home ? path.join(home, '.config', 'coding-owl', 'config.yaml') : null,
      sockets,
      basis: basisOf(data, ctx.homes),
    });
  }
  return found;
}
