import { watchfireConfig } from './config.js';
import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import { basisOf, type LocationBasis } from '../../safety/owners/location-basis.js';

/** The files of a Watchfire root that the rule reads; agent-janitor never writes any of them. */
export const PROJECTS_FILE = 'projects.yaml';
export const AGENTS_FILE = 'agents.yaml';
export const DAEMON_FILE = 'daemon.yaml';
export const DAEMON_LOCK = 'daemon.lock';
export const LOGS_DIR = 'logs';

/** `<home>/.watchfire` for every home, or the roots the config names outright. */
export function watchfireRoots(ctx: Pick<GatherContext, 'config' | 'homes' | 'env'>): string[] {
  return watchfireLocations(ctx).map((location) => location.root);
}

/**
 * Each root with whose it is: a home's `.watchfire` is that home's; a root the config names is the
 * operator's choice, checked against the home it is written from (`~/`) or lies in, if any.
 */
export function watchfireLocations(
  ctx: Pick<GatherContext, 'config' | 'homes' | 'env'>,
): Array<{ root: string; basis: LocationBasis }> {
  const configured = watchfireConfig(ctx.config).root;
  const found = new Map<string, LocationBasis>();
  if (!configured)
    for (const home of ctx.homes) found.set(path.resolve(home, '.watchfire'), { home: path.resolve(home) });
  for (const entry of configured ?? []) {
    const root = path.resolve(expandTilde(entry, ctx.env.HOME));
    const fromHome = ctx.env.HOME && (entry === '~' || entry.startsWith('~/'));
    if (!found.has(root))
      found.set(root, fromHome ? { home: path.resolve(ctx.env.HOME as string) } : basisOf(root, ctx.homes));
  }
  return [...found].map(([root, basis]) => ({ root, basis }));
}

function expandTilde(entry: string, home: string | undefined): string {
  if (!home) return entry;
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return path.join(home, entry.slice(2));
  return entry;
}
