import path from 'node:path';
import { isInside } from '../../safety/inside.js';

// Claude Code's layout of its task output, by path arithmetic alone: pure, so its judge may use it.

/** The variable a background shell of a session carries, naming the session. */
export const SESSION_VARIABLE = 'CLAUDE_CODE_SESSION_ID';
/** The variable naming the Claude Code process that started the shell. */
export const PARENT_VARIABLE = 'CLAUDE_PID';

/** Set in every process Claude Code starts, and in Claude Code itself. */
const CLAUDE_MARK_VARIABLE = 'CLAUDECODE';
/** Where a Claude Code keeps its config folder (sessions, jobs) when not `~/.claude`. */
const CONFIG_DIR_VARIABLE = 'CLAUDE_CONFIG_DIR';
/** The variables of its tool the one look at /proc keeps for this provider. */
export const PROCESS_VARIABLES = [SESSION_VARIABLE, PARENT_VARIABLE, CLAUDE_MARK_VARIABLE, CONFIG_DIR_VARIABLE];

/** Claude Code cuts a slug at this length and appends a hash of the whole path. */
const SLUG_MAX = 200;

/**
 * The folder name Claude Code gives a working directory: every UTF-16 unit that is not an ASCII
 * letter or digit becomes `-`; over 200 characters the slug is cut and gets `-<base36 hash>`
 * (the 32-bit string hash `h = 31h + unit`, its absolute value), as its own code does.
 */
export function slugOf(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (slug.length <= SLUG_MAX) return slug;
  let hash = 0;
  for (let i = 0; i < cwd.length; i += 1) hash = (hash * 31 + cwd.charCodeAt(i)) | 0;
  return `${slug.slice(0, SLUG_MAX)}-${Math.abs(hash).toString(36)}`;
}

/** A slug folder: the slug of an absolute working directory (so it starts with `-`). */
export const isSlugName = (name: string): boolean => /^-[A-Za-z0-9-]*$/.test(name);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REMOTE_SESSION = /^(?:session|cse)_[A-Za-z0-9_]+$/;

/** A session folder: a session id (a UUID, or a remote session's `session_…`, `cse_…`). */
export const isSessionName = (name: string): boolean => UUID.test(name) || REMOTE_SESSION.test(name);

/** Older versions kept a session's tasks straight in the slug folder: `<slug>/tasks/`. */
export const LEGACY_TASKS = 'tasks';

/** The name of the root of a uid's task output: `claude-<uid>`. */
export const rootName = (uid: number): string => `claude-${uid}`;
/** The root of the oldest versions, shared by name: `/tmp/claude`. */
export const LEGACY_ROOT = 'claude';

/**
 * A folder of task output under a root: a session folder `<slug>/<sid>`, or an older version's
 * `<slug>/tasks` (sid null).
 */
export interface SessionFolder {
  path: string;
  slug: string;
  sid: string | null;
}

/**
 * The session folder a path under `root` lies in (`<root>/<slug>/<sid or tasks>/…`), or null when
 * it lies in none. `roots` are the names the root goes by (as named, canonical).
 */
export function sessionFolderOf(target: string, roots: readonly string[]): string | null {
  for (const root of roots) {
    if (!isInside(root, target)) continue;
    const [slug, session] = path.relative(root, target).split(path.sep);
    if (slug && session && isSlugName(slug) && (isSessionName(session) || session === LEGACY_TASKS))
      return path.join(roots[0] as string, slug, session);
  }
  return null;
}
