import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { foundCodexHomes } from './homes.js';
import { THREAD_DATABASE, defaultWorktreeRoot } from './layout.js';
import { databaseBasis, readCodexSettings } from './settings.js';

/** Codex's databases by name, for a SQLite home outside `$CODEX_HOME` that other programs may share. */
const DATABASES = ['state_*', 'logs_*', 'goals_*', 'queue_*', 'memories_*', 'thread_history_*'].map(
  (name) => `${name}.sqlite*`,
);

/**
 * Where Codex's state goes (README.md, "Footprint"): every Codex home the pass finds (`~/.codex`,
 * `$CODEX_HOME`, a live Codex's), with its rollouts, logs, SQLite databases, `.tmp` (whose clones
 * are items) and the app's worktrees; and the SQLite home and worktree root config.toml or the
 * environment move elsewhere.
 */
export async function codexFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  const places: FootprintPlace[] = [];
  for (const found of foundCodexHomes(ctx)) {
    if (found.unreachable) continue;
    const { codexHome, basis } = found;
    places.push(
      { path: codexHome, category: 'other', basis },
      { path: path.join(codexHome, 'sessions'), category: 'transcripts', basis },
      { path: path.join(codexHome, 'archived_sessions'), category: 'transcripts', basis },
      { path: path.join(codexHome, 'log'), category: 'logs', basis },
      { path: codexHome, pattern: '*.sqlite*', category: 'databases', basis },
      { path: defaultWorktreeRoot(codexHome), category: 'worktrees', basis },
    );
    const read = readCodexSettings(found);
    const settings = read.state === 'unreadable' ? null : read.settings;
    const sqliteHomes = new Set([settings?.sqliteHome ?? null, ...found.sqliteHomes]);
    for (const sqliteHome of sqliteHomes) {
      const where = sqliteHome === null ? null : databaseBasis(found, path.join(sqliteHome, THREAD_DATABASE));
      if (sqliteHome !== null && where !== null)
        for (const pattern of DATABASES)
          places.push({ path: sqliteHome, pattern, category: 'databases', basis: where });
    }
    const worktreeRoot = settings?.worktreeRoot ?? null;
    const where = worktreeRoot === null ? null : databaseBasis(found, worktreeRoot);
    if (worktreeRoot !== null && where !== null)
      places.push({ path: worktreeRoot, category: 'worktrees', basis: where });
  }
  return places;
}
