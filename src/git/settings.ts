import { scrubGitEnvironment } from './environment.js';

// What every git run shares (start.ts starts them all).

/** A repository's own config must never make git run a program of its choosing on our behalf. */
export const SAFE_CONFIG: readonly string[] = ['core.fsmonitor=false', 'safe.directory=*', 'core.hooksPath=/dev/null'];

/** The same as git's leading `-c` arguments. */
export const SAFE_ARGUMENTS: readonly string[] = SAFE_CONFIG.flatMap((setting) => ['-c', setting]);

/** How many gits a pass runs side by side (the worktree checks, the worktrees git removes). */
export const GIT_CONCURRENCY = 4;

/** How long git may go without printing anything before it is killed. */
export const DEFAULT_SILENCE_LIMIT_MS = 120_000;

/**
 * Variables outside git's own family that name a program git may start (an editor, a password
 * prompt) or a folder it reads config from: no git run by a pass edits, asks or needs them.
 */
const PROGRAM_VARIABLES: ReadonlySet<string> = new Set(['EDITOR', 'VISUAL', 'SSH_ASKPASS', 'PREFIX']);

/**
 * Where git looks for the global config and the default excludes file: nowhere. The pass's home is
 * root's or another user's, and its `.gitconfig` or `.config/git/ignore` could hide untracked files
 * (`core.excludesFile`) or the branches a log shows (`log.excludeDecoration`); only a repository's
 * own config counts, so git may see more changes than its owner's setup would show, never fewer.
 * git takes a home that is not a folder for one with no config in it.
 */
const NO_HOME = '/dev/null';

/**
 * The environment every git call runs with: the pass's own, scrubbed of every variable that could
 * point git at another repository or change its answer (see environment.ts), then no global or
 * system config, no optional locks (a status never takes an agent's index.lock), the C locale
 * (messages we parse), no pager, no prompt. `extra` is the caller's own and is kept as given.
 */
export function gitEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = scrubGitEnvironment(process.env);
  for (const name of Object.keys(inherited)) if (PROGRAM_VARIABLES.has(name.toUpperCase())) delete inherited[name];
  return { ...inherited, ...extra, ...SET_BY_US };
}

const SET_BY_US: Readonly<Record<string, string>> = {
  HOME: NO_HOME,
  XDG_CONFIG_HOME: NO_HOME,
  GIT_CONFIG_GLOBAL: NO_HOME,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
};
