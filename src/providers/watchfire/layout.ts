import path from 'node:path';
import type { GatherContext } from '../../core/types.js';

/** The files of a Watchfire root that the rule reads; agent-janitor never writes any of them. */
export const PROJECTS_FILE = 'projects.yaml';
export const AGENTS_FILE = 'agents.yaml';
export const DAEMON_FILE = 'daemon.yaml';
export const DAEMON_LOCK = 'daemon.lock';
export const LOGS_DIR = 'logs';

/** `<home>/.watchfire` for every home, or the roots the config names outright. */
export function watchfireRoots(ctx: Pick<GatherContext, 'config' | 'homes' | 'env'>): string[] {
  const configured = ctx.config.providers.watchfire.root;
  const roots = configured
    ? configured.map((root) => expandTilde(root, ctx.env.HOME))
    : ctx.homes.map((home) => path.join(home, '.watchfire'));
  return [...new Set(roots.map((root) => path.resolve(root)))];
}

function expandTilde(entry: string, home: string | undefined): string {
  if (!home) return entry;
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return path.join(home, entry.slice(2));
  return entry;
}
