import { scrubGitEnvironment } from './environment.js';

// What every git run shares, whichever way it is started: simple-git (runner.ts, loaded with the
// first run through it) or a child of our own (descriptors.ts, each.ts).

/** A repository's own config must never make git run a program of its choosing on our behalf. */
export const SAFE_CONFIG: readonly string[] = ['core.fsmonitor=false', 'safe.directory=*', 'core.hooksPath=/dev/null'];

/** The same as git's leading `-c` arguments, for the runs that start git without simple-git. */
export const SAFE_ARGUMENTS: readonly string[] = SAFE_CONFIG.flatMap((setting) => ['-c', setting]);

/** How long git may go without printing anything before it is killed. */
export const DEFAULT_SILENCE_LIMIT_MS = 120_000;

/**
 * Variables outside git's own family that name a program git may start (an editor, a password
 * prompt) or a folder it reads config from: no git run by a pass edits, asks or needs them, and
 * simple-git refuses a run that has them.
 */
const PROGRAM_VARIABLES: ReadonlySet<string> = new Set(['EDITOR', 'VISUAL', 'SSH_ASKPASS', 'PREFIX']);

/**
 * The environment every git call runs with: the pass's own, scrubbed of every variable that could
 * point git at another repository or change its answer (see environment.ts), then no optional
 * locks (a status never takes an agent's index.lock), the C locale (messages we parse), no pager,
 * no prompt. `extra` is the caller's own and is kept as given.
 */
export function gitEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = scrubGitEnvironment(process.env);
  for (const name of Object.keys(inherited)) if (PROGRAM_VARIABLES.has(name.toUpperCase())) delete inherited[name];
  return {
    ...inherited,
    ...extra,
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
  };
}
