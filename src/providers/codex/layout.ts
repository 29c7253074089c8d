import path from 'node:path';
import type { SetContext } from '../../provider-api/provider.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';

/** One home's Codex: `$CODEX_HOME`, and whose it is (rule 20). */
export interface CodexHome {
  home: string;
  /** `$CODEX_HOME` for the current user's own home, else `<home>/.codex`. */
  codexHome: string;
  /** Whether the environment of the pass describes this home (its variables apply to it alone). */
  own: boolean;
  basis: LocationBasis;
}

const isOwnHome = (home: string, env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.HOME) && path.resolve(env.HOME as string) === path.resolve(home);

/** `$CODEX_HOME` describes the current user's own home; every other home has Codex's default. */
export function codexHomes(ctx: Pick<SetContext, 'homes' | 'env'>): CodexHome[] {
  return ctx.homes.map((given) => {
    const home = path.resolve(given);
    const own = isOwnHome(home, ctx.env);
    const named = ctx.env.CODEX_HOME;
    const codexHome = own && named && path.isAbsolute(named) ? path.resolve(named) : path.join(home, '.codex');
    return { home, codexHome, own, basis: { home } };
  });
}

/** `$CODEX_HOME/.tmp`: where Codex clones marketplaces and plugins (the containment root of their items). */
export const scratchRoot = (codexHome: string): string => path.join(codexHome, '.tmp');
export const marketplacesFolder = (codexHome: string): string => path.join(codexHome, '.tmp', 'marketplaces');
export const stagingFolder = (codexHome: string): string => path.join(marketplacesFolder(codexHome), '.staging');
/** Held by Codex while it makes a staging folder, and by its own sweep. */
export const stagingLock = (codexHome: string): string => path.join(marketplacesFolder(codexHome), '.staging.lock');
/** Held by Codex while it clones the curated plugins into `.tmp/plugins-clone-*`. */
export const pluginsSyncLock = (codexHome: string): string => path.join(codexHome, '.tmp', 'plugins.sync.lock');
/** The app's worktrees unless config.toml's `[desktop] git-worktree-root` names another root. */
export const defaultWorktreeRoot = (codexHome: string): string => path.join(codexHome, 'worktrees');
export const writerLocksFolder = (codexHome: string): string => path.join(codexHome, 'thread-writer-locks');
export const THREAD_DATABASE = 'state_5.sqlite';
/** Codex's SQLite databases in its sqlite home (0.171.0's names), `THREAD_DATABASE` among them. */
export const CODEX_DATABASES = [
  THREAD_DATABASE,
  'logs_2.sqlite',
  'goals_1.sqlite',
  'queue_1.sqlite',
  'memories_1.sqlite',
  'memories_v2_1.sqlite',
  'thread_history_1.sqlite',
];
/** The number of the log database Codex writes now (`logs_2.sqlite`); a lower one is superseded. */
export const CURRENT_LOGS = 2;
/** `logs_<n>.sqlite`: Codex's numbered log database. */
export const LOGS_DATABASE = /^logs_(\d+)\.sqlite$/;
/** Codex deletes log rows older than this itself (`LOG_RETENTION_SECONDS`). */
export const LOG_RETENTION_MS = 10 * 86_400_000;
/** Flocked by the one Codex process of a sqlite home that maintains its databases. */
export const MAINTENANCE_LOCK = '.sqlite-maintenance.lock';

/** A current staging folder: `marketplace-<os>-XXXXXX` (tempfile's six random characters). */
export const CURRENT_STAGING = /^marketplace-(?!upgrade-|add-|backup-)[a-z0-9_]+-[A-Za-z0-9]{6}$/;
/** Older versions' staging folders, with no lock: swept by Codex after these many seconds. */
export const LEGACY_STAGING: ReadonlyArray<{ pattern: RegExp; thresholdMs: number; made: string }> = [
  { pattern: /^marketplace-upgrade-[A-Za-z0-9]{6}$/, thresholdMs: 600_000, made: 'marketplace upgrade' },
  { pattern: /^marketplace-add-[A-Za-z0-9]{6}$/, thresholdMs: 86_400_000, made: 'marketplace add' },
];
export const BACKUP = /^marketplace-backup-[A-Za-z0-9]{6}$/;
export const PLUGIN_CLONE = /^plugins-clone-[A-Za-z0-9]+$/;
/** The install record Codex writes into a marketplace copy it cloned or upgraded. */
export const INSTALL_RECORD = '.codex-marketplace-install.json';
/** Where a marketplace's manifest may be, in the order Codex looks. */
export const MANIFESTS = [
  '.agents/plugins/marketplace.json',
  '.claude-plugin/marketplace.json',
  '.cursor-plugin/marketplace.json',
];
/** Codex's thread ids (UUIDs): the only names a writer lock or a thread file path is built from. */
export const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
