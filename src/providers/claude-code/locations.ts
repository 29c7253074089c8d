import path from 'node:path';
import type { GatherContext } from '../../provider-api/provider.js';
import type { RootStatus } from '../../model/types.js';
import { lstatOrNullSync, realpathSync } from '../../safety/fs/stat.js';
import { homeOwner, locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { passwdHome, whose } from '../../safety/processes/user-names.js';
import { claudeCodeConfig } from './config.js';
import { LEGACY_ROOT, rootName } from './layout.js';
import type { ConfigDir } from './registry.js';

/** A uid that owns homes of the pass: its `claude-<uid>` holds the task output of all of them. */
export interface ClaudeUser {
  uid: number;
  homes: string[];
}

/** A root of task output, found and proven its uid's (rule 20). */
export interface TaskRoot {
  /** As named: `/tmp/claude-1000`. */
  path: string;
  /** The same folder, canonical. */
  canonical: string;
  owner: Owner;
  user: ClaudeUser;
  /** `/tmp/claude` of the oldest versions, shared by name. */
  legacy: boolean;
}

type Env = NodeJS.ProcessEnv;

const isOwnHome = (home: string, env: Env): boolean =>
  Boolean(env.HOME) && path.resolve(env.HOME as string) === path.resolve(home);

/** The homes of the pass by their owners' uids (a home that is no folder has no owner, and no task output). */
export function claudeUsers(homes: readonly string[]): ClaudeUser[] {
  const users = new Map<number, ClaudeUser>();
  for (const home of homes) {
    const owner = homeOwner(home);
    if (!owner) continue;
    const user = users.get(owner.uid) ?? { uid: owner.uid, homes: [] };
    user.homes.push(path.resolve(home));
    users.set(owner.uid, user);
  }
  return [...users.values()];
}

/**
 * The folders holding a uid's roots: `providers.claude-code.tmpDir` where the config names it;
 * else, for the current user's own home, `$CLAUDE_CODE_TMPDIR`, `$TMPDIR` or `/tmp`, as Claude
 * Code picks; for every other home `/tmp` (their variables are not known).
 */
function tmpBases(user: ClaudeUser, ctx: Pick<GatherContext, 'config' | 'env'>): string[] {
  const configured = claudeCodeConfig(ctx.config).tmpDir;
  if (configured) return [...new Set(configured.map((dir) => path.resolve(dir)))];
  const bases = user.homes.map((home) => {
    if (!isOwnHome(home, ctx.env)) return '/tmp';
    const named = [ctx.env.CLAUDE_CODE_TMPDIR, ctx.env.TMPDIR].find((dir) => dir && path.isAbsolute(dir));
    return path.resolve(named ?? '/tmp');
  });
  return [...new Set(bases)];
}

/**
 * The config folders whose registries may name a session of this uid: `~/.claude` of each of its
 * homes, `$CLAUDE_CONFIG_DIR` for the current user's own home, and the uid's home in /etc/passwd
 * (a `claude-<uid>` is shared by every Claude Code the uid runs, whatever home it runs with: a
 * registry the pass was not told of can only keep more). A passwd home that is a link to nothing
 * (a disk not mounted here) is read from `/` as the uid's, so that it is unknown, not absent. The
 * `CLAUDE_CONFIG_DIR` of each running Claude Code is added from /proc (evidence.ts).
 */
export function configDirs(user: ClaudeUser, env: Env): ConfigDir[] {
  const dirs: ConfigDir[] = [];
  for (const home of user.homes) {
    const named = env.CLAUDE_CONFIG_DIR;
    if (isOwnHome(home, env) && named && path.isAbsolute(named))
      dirs.push({ dir: path.resolve(named), basis: { home } });
    dirs.push({ dir: path.join(home, '.claude'), basis: { home } });
  }
  const listed = passwdHome(user.uid);
  if (listed && path.isAbsolute(listed) && !user.homes.includes(path.resolve(listed))) {
    const home = path.resolve(listed);
    const owner = homeOwner(home);
    if (owner?.uid === user.uid) dirs.push({ dir: path.join(home, '.claude'), basis: { home } });
    else if (owner === null) dirs.push({ dir: path.join(home, '.claude'), basis: { outside: { uid: user.uid } } });
  }
  return dirs;
}

/** A `claude-<uid>` that is not its uid's (rule 20), or a link to it another user made in `/tmp` (rule 28). */
export interface ForeignRoot {
  path: string;
  detail: string;
}

/**
 * Every root of task output of the pass's uids, each reached only through links its uid's and
 * owned by the uid its name carries (rules 20 and 28): a `claude-<uid>` of another uid, a link to
 * another user's folder, or a link another user made, is refused (its status says why, and it is
 * `foreign`) and nothing in it is read. The shared `/tmp/claude` of the oldest versions is its
 * owner's, when that owner is a uid of the pass.
 */
export function locateRoots(
  users: readonly ClaudeUser[],
  ctx: Pick<GatherContext, 'config' | 'env'>,
): { roots: TaskRoot[]; statuses: RootStatus[]; foreign: ForeignRoot[] } {
  const roots: TaskRoot[] = [];
  const statuses: RootStatus[] = [];
  const foreign: ForeignRoot[] = [];
  const refuse = (root: string, error: string) => statuses.push({ provider: 'claude-code', root, ok: false, error });
  const legacyBases = new Set<string>();
  for (const user of users) {
    for (const base of tmpBases(user, ctx)) {
      legacyBases.add(base);
      const named = path.join(base, rootName(user.uid));
      const located = locate(named, { outside: { uid: user.uid } });
      if (located.state === 'absent') continue;
      if (located.state !== 'found') {
        refuse(named, located.detail);
        if (located.state === 'refused') foreign.push({ path: named, detail: located.detail });
        continue;
      }
      const proven = provenRoot(named, user.uid);
      if ('error' in proven) {
        refuse(named, proven.error);
        if (proven.foreign) foreign.push({ path: named, detail: proven.error });
      } else roots.push({ path: named, canonical: proven.canonical, owner: proven.owner, user, legacy: false });
    }
  }
  for (const base of legacyBases) {
    const named = path.join(base, LEGACY_ROOT);
    const located = locate(named, { outside: {} });
    if (located.state !== 'found') continue;
    // Another user's (or no user of the pass's): theirs to clean, not read here.
    const user = users.find((each) => each.uid === located.owner.uid);
    if (!user) continue;
    const proven = provenRoot(named, user.uid);
    if (!('error' in proven))
      roots.push({ path: named, canonical: proven.canonical, owner: proven.owner, user, legacy: true });
  }
  const seen = new Set<string>();
  return {
    roots: roots.filter((root) => !seen.has(root.canonical) && seen.add(root.canonical)),
    statuses,
    foreign,
  };
}

/** The root's folder itself must be its uid's (Claude Code makes it so, mode 0700); root's is not enough. */
function provenRoot(
  named: string,
  uid: number,
): { canonical: string; owner: Owner } | { error: string; foreign?: true } {
  let canonical: string;
  try {
    canonical = realpathSync(named);
  } catch (err) {
    return { error: `${named} cannot be resolved: ${String(err)}` };
  }
  const stats = lstatOrNullSync(canonical);
  if (!stats?.isDirectory()) return { error: `${named} is no folder` };
  if (stats.uid !== uid)
    return {
      foreign: true,
      error: `${named} belongs to ${whose(stats.uid)}, not to ${whose(uid)}, the user its name carries: nothing in it is read`,
    };
  return { canonical, owner: { uid: stats.uid, gid: stats.gid } };
}
