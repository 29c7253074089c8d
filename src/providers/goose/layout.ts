import os from 'node:os';
import path from 'node:path';
import type { ClaimContext } from '../../provider-api/provider.js';
import { basisOf, type LocationBasis } from '../../safety/owners/location-basis.js';
import { gooseConfig } from './config.js';

// Goose's files, as its source writes them (aaif-goose/goose crates/goose/src/logging.rs,
// crates/goose/src/config/paths.rs).

/** The components that log into `logs/<component>/`: the CLI and the server (goosed). */
export const COMPONENTS = ['cli', 'server'] as const;
export type Component = (typeof COMPONENTS)[number];

/** Goose's own rule (`cleanup_old_logs`): a folder in `logs/<component>/` older than this goes. */
export const OWNER_RETENTION_MS = 14 * 86_400_000;

/** A date folder, as Goose names it (`%Y-%m-%d`, local time). */
export const DATE_FOLDER = /^\d{4}-\d{2}-\d{2}$/;

/** A log file, as Goose names it (`%Y%m%d_%H%M%S[-<name>].log`, one per process). */
export const LOG_FILE = /^\d{8}_\d{6}(?:-.+)?\.log$/;

/** A folder of Goose's: its state folder (`logs/<component>/`) or its data folder (`sessions/`). */
export interface GooseFolder {
  dir: string;
  /** Whose it is: the home it is in, else outside every home (rule 20). */
  basis: LocationBasis;
}

/** Where Goose keeps its logs and its sessions, for every home of the pass. */
export interface GooseLocations {
  /** `~/.local/state/goose`: `logs/<component>/`. */
  states: GooseFolder[];
  /** `~/.local/share/goose`: `sessions/`. */
  datas: GooseFolder[];
}

export const logsDir = (state: string, component: Component): string => path.join(state, 'logs', component);
export const sessionsDir = (data: string): string => path.join(data, 'sessions');

/**
 * Goose's folders of every home, or the ones the config names outright (`stateDir`, `dataDir`).
 * For the pass's own home, the environment counts as Goose reads it: `GOOSE_PATH_ROOT` (an
 * absolute path: `<root>/state`, `<root>/data`), else `$XDG_STATE_HOME` and `$XDG_DATA_HOME`.
 */
export function gooseLocations(ctx: Pick<ClaimContext, 'config' | 'homes' | 'env'>): GooseLocations {
  const section = gooseConfig(ctx.config);
  const folder = (dir: string): GooseFolder => ({ dir: path.resolve(dir), basis: basisOf(dir, ctx.homes) });
  if (section.stateDir || section.dataDir)
    return { states: (section.stateDir ?? []).map(folder), datas: (section.dataDir ?? []).map(folder) };
  const own = path.resolve(ctx.env.HOME || os.homedir());
  const states: GooseFolder[] = [];
  const datas: GooseFolder[] = [];
  for (const raw of ctx.homes) {
    const home = path.resolve(raw);
    const root = home === own ? absolute(ctx.env.GOOSE_PATH_ROOT) : null;
    const xdg = (name: string, fallback: string[]) =>
      path.join((home === own ? absolute(ctx.env[name]) : null) ?? path.join(home, ...fallback), 'goose');
    const state = root ? path.join(root, 'state') : xdg('XDG_STATE_HOME', ['.local', 'state']);
    const data = root ? path.join(root, 'data') : xdg('XDG_DATA_HOME', ['.local', 'share']);
    states.push({ dir: state, basis: basisOf(state, [home]) });
    datas.push({ dir: data, basis: basisOf(data, [home]) });
  }
  return { states, datas };
}

const absolute = (value: string | undefined): string | null =>
  value !== undefined && value !== '' && path.isAbsolute(value) ? value : null;

/** A process of Goose's: the server (`goosed`) or the CLI (`goose`), by its command name or executable. */
export function gooseProgram(process: { command: string; exe: string | null }): 'goosed' | 'goose' | null {
  for (const name of [process.command, process.exe === null ? null : path.basename(process.exe)]) {
    if (name === 'goosed' || name === 'goose') return name;
  }
  return null;
}
