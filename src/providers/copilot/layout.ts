import path from 'node:path';
import type { SetContext } from '../../provider-api/provider.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';

// Copilot CLI's layout (read from @github/copilot 1.0.60's app.js), by path arithmetic alone: pure,
// so its judge may use it.

/** The variable Copilot CLI names its home with (`gs`: `--config-dir`, else `$COPILOT_HOME`, else `~/.copilot`). */
export const HOME_VARIABLE = 'COPILOT_HOME';
/** The hidden, deprecated option that names the home on the command line, before the variable. */
export const CONFIG_DIR_OPTION = '--config-dir';

/** One Copilot CLI home of the pass: its folder, the home it belongs to, and whose it is (rule 20). */
export interface CopilotHome {
  /** The user's home. */
  home: string;
  /** `~/.copilot`, or a `COPILOT_HOME`. */
  dir: string;
  basis: LocationBasis;
}

const isOwnHome = (home: string, env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.HOME) && path.resolve(env.HOME as string) === path.resolve(home);

/**
 * The homes the config and the environment of the pass name: `~/.copilot` of every home, and
 * `$COPILOT_HOME` for the current user's own. Those only a live process names are found with the
 * processes (homes.ts).
 */
export function copilotHomes(ctx: Pick<SetContext, 'homes' | 'env'>): CopilotHome[] {
  const found = new Map<string, CopilotHome>();
  for (const given of ctx.homes) {
    const home = path.resolve(given);
    const basis = { home };
    const dirs = [path.join(home, '.copilot')];
    const named = ctx.env[HOME_VARIABLE];
    if (isOwnHome(home, ctx.env) && named && path.isAbsolute(named)) dirs.push(path.resolve(named));
    for (const dir of dirs) if (!found.has(dir)) found.set(dir, { home, dir, basis });
  }
  return [...found.values()];
}

/** `logs/`: one `process-<epoch ms>-<pid>.log` per process (`--log-dir` names another folder). */
export const logsFolder = (dir: string): string => path.join(dir, 'logs');
/** `session-state/<session id>/`: a session's events, workspace.yaml, checkpoints and in-use locks. */
export const sessionStateFolder = (dir: string): string => path.join(dir, 'session-state');
/** The session store every Copilot CLI process holds open (SQLite, WAL mode). */
export const sessionStore = (home: string): string => path.join(home, 'session-store.db');
export const WORKSPACE_FILE = 'workspace.yaml';

/** The files Copilot's own log rule counts (`OOo`: names that start with `process-` and end with `.log`). */
export const isCountedLog = (name: string): boolean => name.startsWith('process-') && name.endsWith('.log');
/** The name Copilot gives a process's log: its start in epoch milliseconds, and its pid. */
export const PROCESS_LOG = /^process-(\d{1,16})-(\d{1,10})\.log$/;
/** `inuse.<pid>.lock` in a session's folder: the process that has the session open (`inUseLocksRegister`). */
export const IN_USE_LOCK = /^inuse\.(\d{1,10})\.lock$/;

/** Copilot's log rule: files older than seven days go (`NOo` = 10080 minutes) ... */
export const LOG_RETENTION_MS = 7 * 86_400_000;
/** ... and, when there are more than fifty, every one past the fifty newest by mtime (`POo`). */
export const LOG_KEEP_NEWEST = 50;

/** Where Copilot makes a pull request's worktree: `<main worktree>.worktrees/<branch with / as ->` (`GQr`). */
export const PR_WORKTREES_SUFFIX = '.worktrees';
