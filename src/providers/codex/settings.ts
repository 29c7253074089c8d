import path from 'node:path';
import { parse } from 'smol-toml';
import { errorMessage } from '../../model/errors.js';
import { readStateFileSync } from '../../safety/fs/read.js';
import { isInside } from '../../safety/inside.js';
import { homeOwner, locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import { isPlainObject } from '../../util/plain-object.js';
import type { FoundHome } from './homes.js';
import { THREAD_DATABASE, defaultWorktreeRoot, type CodexHome } from './layout.js';

/** A configured marketplace, as config.toml's `[marketplaces.<name>]` has it. */
interface ConfiguredMarketplace {
  sourceType: string | null;
  source: string | null;
}

/** What this provider reads of Codex's config.toml. */
export interface CodexSettings {
  /** `sqlite_home`: where the thread database is, when config.toml moves it. */
  sqliteHome: string | null;
  /** `[desktop] git-worktree-root`: where the app makes its worktrees, when config.toml moves them. */
  worktreeRoot: string | null;
  marketplaces: ReadonlyMap<string, ConfiguredMarketplace>;
}

export type SettingsRead =
  | { state: 'read'; settings: CodexSettings }
  /** No config.toml: Codex's defaults, and no marketplace configured. */
  | { state: 'absent'; settings: CodexSettings }
  | { state: 'unreadable'; error: string };

const EMPTY: CodexSettings = { sqliteHome: null, worktreeRoot: null, marketplaces: new Map() };

/** Larger than any config.toml a person writes; a bigger file is not read. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * `$CODEX_HOME/config.toml`, as the home's owner's (rule 20: never through a link to another user's
 * file). Unreadable or not TOML: what depends on it fails closed.
 */
export function readCodexSettings(codex: CodexHome): SettingsRead {
  const file = path.join(codex.codexHome, 'config.toml');
  const located = locate(file, codex.basis, 'file');
  if (located.state === 'absent') return { state: 'absent', settings: EMPTY };
  if (located.state !== 'found') return { state: 'unreadable', error: located.detail };
  let value: unknown;
  try {
    const read = readStateFileSync(file, MAX_CONFIG_BYTES);
    if (!read) return { state: 'absent', settings: EMPTY };
    value = parse(read.text);
  } catch (err) {
    return { state: 'unreadable', error: `${file} cannot be read as TOML: ${errorMessage(err)}` };
  }
  if (!isPlainObject(value)) return { state: 'unreadable', error: `${file} is not a TOML table` };
  const marketplaces = new Map<string, ConfiguredMarketplace>();
  if (isPlainObject(value.marketplaces))
    for (const [name, entry] of Object.entries(value.marketplaces)) {
      if (!isPlainObject(entry)) continue;
      marketplaces.set(name, { sourceType: text(entry.source_type), source: text(entry.source) });
    }
  const desktop = isPlainObject(value.desktop) ? value.desktop : {};
  return {
    state: 'read',
    settings: {
      sqliteHome: absolute(text(value.sqlite_home), codex),
      // Codex takes only an absolute path here (`desktop.git-worktree-root must be an absolute path`).
      worktreeRoot: absoluteOnly(text(desktop['git-worktree-root'])),
      marketplaces,
    },
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

const absoluteOnly = (value: string | null): string | null =>
  value !== null && path.isAbsolute(value) ? path.resolve(value) : null;

/** A path of config.toml's: `~/` is the home, a relative one is read from `$CODEX_HOME`, as Codex reads it. */
function absolute(value: string | null, codex: CodexHome): string | null {
  if (value === null) return null;
  if (value === '~' || value.startsWith('~/')) return path.join(codex.home, value.slice(1));
  return path.resolve(codex.codexHome, value);
}

/**
 * The thread database: config.toml's `sqlite_home`, else `$CODEX_SQLITE_HOME` (the current user's
 * own home only), else `$CODEX_HOME`.
 */
export function threadDatabase(codex: CodexHome, settings: CodexSettings, env: NodeJS.ProcessEnv): string {
  const named =
    codex.own && env.CODEX_SQLITE_HOME && path.isAbsolute(env.CODEX_SQLITE_HOME) ? env.CODEX_SQLITE_HOME : null;
  return path.join(settings.sqliteHome ?? (named ? path.resolve(named) : codex.codexHome), THREAD_DATABASE);
}

/** The roots the app's worktrees may be in: the default, and the one config.toml names. */
export function worktreeRoots(codex: CodexHome, settings: CodexSettings): string[] {
  const roots = [defaultWorktreeRoot(codex.codexHome)];
  if (settings.worktreeRoot && settings.worktreeRoot !== roots[0]) roots.push(settings.worktreeRoot);
  return roots;
}

/**
 * The thread databases of a home the pass found: config.toml's `sqlite_home`, else each
 * `$CODEX_SQLITE_HOME` it was found with (a live process's), else `$CODEX_HOME`.
 */
export function threadDatabasesOf(found: FoundHome, settings: CodexSettings): string[] {
  if (settings.sqliteHome) return [path.join(settings.sqliteHome, THREAD_DATABASE)];
  const files = found.sqliteHomes.map((sqliteHome) => path.join(sqliteHome ?? found.codexHome, THREAD_DATABASE));
  return [...new Set(files)];
}

/** A database in the home (or in `$CODEX_HOME`) is the home's; one elsewhere (`sqlite_home`) must be the home's owner's too. */
export function databaseBasis(codex: CodexHome, database: string): LocationBasis | null {
  if (isInside(codex.home, database) || isInside(codex.codexHome, database)) return codex.basis;
  const owner = homeOwner(codex.home);
  return owner ? { owner, of: `the owner of ${codex.home}` } : null;
}
