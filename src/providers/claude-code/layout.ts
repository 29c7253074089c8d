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
export const CONFIG_DIR_VARIABLE = 'CLAUDE_CONFIG_DIR';
/** The working directory as the shell spelled it (through links): a spelling of it Claude Code may slug. */
export const PWD_VARIABLE = 'PWD';
/** The variables of its tool the one look at /proc keeps for this provider. */
export const PROCESS_VARIABLES = [
  SESSION_VARIABLE,
  PARENT_VARIABLE,
  CLAUDE_MARK_VARIABLE,
  CONFIG_DIR_VARIABLE,
  PWD_VARIABLE,
];

/** What the one look at /proc says a process runs. */
interface ProcessIdentity {
  exe: string | null;
  argv: readonly string[] | null;
  vars: Readonly<Record<string, string>> | null;
}

/** The native installer's binaries: `~/.local/share/claude/versions/2.1.332`. */
const INSTALLED = /(^|\/)claude\/versions\/[^/]+$/;
/** The npm package run by Node: `node …/@anthropic-ai/claude-code/cli.js`. */
const NPM_ENTRY = /(^|\/)@anthropic-ai\/claude-code\/cli\.m?js$/;

/**
 * A running Claude Code: its executable or `argv[0]` is Claude Code's (the native `claude`, an
 * installer's `claude/versions/<version>`, the npm package's `cli.js` under Node), or it carries
 * `CLAUDECODE=1` (Claude Code itself and everything it starts). Taking another program for it only
 * keeps more.
 */
export function isClaudeCodeProcess(process: ProcessIdentity): boolean {
  if (process.vars?.[CLAUDE_MARK_VARIABLE] === '1') return true;
  const [first, second] = process.argv ?? [];
  return (
    [process.exe, first].some((each) => each && (path.basename(each) === 'claude' || INSTALLED.test(each))) ||
    [first, second].some((each) => each && NPM_ENTRY.test(each))
  );
}

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
