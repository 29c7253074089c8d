import path from 'node:path';
import type { FootprintPlace } from '../../provider-api/footprint.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { claudeUsers, configDirs, locateRoots } from './locations.js';

/**
 * Where Claude Code's state goes (README.md, "Footprint"): the config folder of each home of the
 * pass (`~/.claude`, or `$CLAUDE_CONFIG_DIR` for the current user's) with its transcripts, debug
 * logs and file history; `~/.claude.json`; the MCP logs under the cache folder; and each uid's
 * `claude-<uid>` of background task output, whose session folders are items.
 */
export async function claudeCodeFootprint(ctx: GatherContext): Promise<FootprintPlace[]> {
  const users = claudeUsers(ctx.homes);
  const places: FootprintPlace[] = [];
  for (const user of users) {
    for (const { dir, basis } of configDirs(user, ctx.env)) {
      // The uid's home in /etc/passwd is read for its registry; its disk is not one of the pass's homes.
      if (!('home' in basis) || !user.homes.includes(basis.home)) continue;
      places.push(
        { path: dir, category: 'other', basis },
        { path: path.join(dir, 'projects'), category: 'transcripts', basis },
        { path: path.join(dir, 'debug'), category: 'logs', basis },
        { path: path.join(dir, 'logs'), category: 'logs', basis },
        { path: path.join(dir, 'traces'), category: 'logs', basis },
        { path: path.join(dir, 'file-history'), category: 'checkpoints', basis },
      );
    }
    for (const home of user.homes) {
      const basis = { home };
      const own = Boolean(ctx.env.HOME) && path.resolve(ctx.env.HOME as string) === home;
      const cache =
        own && ctx.env.XDG_CACHE_HOME && path.isAbsolute(ctx.env.XDG_CACHE_HOME)
          ? ctx.env.XDG_CACHE_HOME
          : path.join(home, '.cache');
      places.push(
        { path: path.join(home, '.claude.json'), category: 'other', basis },
        { path: path.join(cache, 'claude-cli-nodejs'), category: 'logs', basis },
      );
    }
  }
  for (const root of locateRoots(users, ctx).roots)
    places.push({ path: root.path, category: 'tool-output', basis: { outside: { uid: root.user.uid } } });
  return places;
}
