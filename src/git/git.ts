import { encodeText, escapeBytes } from '../safety/fs/names.js';
import type { Owner } from '../safety/owners/owner.js';
import { GitError, type GitResult, lastLine, type RawAnswer, settle } from './answer.js';
import { DEFAULT_SILENCE_LIMIT_MS } from './settings.js';
import { ArgumentRefused, startGit } from './start.js';
import type { Supervision } from './supervise.js';

export { GitError, type GitResult, IncompleteAnswer, lastLine } from './answer.js';
export { gitEnvironment } from './settings.js';

export interface GitOptions {
  cwd?: string;
  /** Run as this user (root running over another user's repository). */
  owner?: Owner | null;
  /** git is killed after this long without printing anything. */
  timeoutMs?: number;
  /** Aborting kills the git still running; a run asked for once aborted never starts. */
  abort?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Written to git's standard input (`--stdin` commands), names' bytes kept (src/safety/fs/names.ts). */
  input?: string;
}

/**
 * Runs git and answers its exit code and output as a value; never throws for a non-zero exit.
 * Throws a GitError when git gave no answer: refused arguments, no git, killed at its time limit,
 * or (IncompleteAnswer) git said it could not read part of what it was asked (rule 22). How git
 * is started is in start.ts.
 */
export async function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const shown = `git ${args.map(escapeBytes).join(' ')}`;
  const owner = options.owner ?? null;
  const supervision: Supervision = {
    silenceLimitMs: options.timeoutMs ?? DEFAULT_SILENCE_LIMIT_MS,
    ...(options.abort ? { abort: options.abort } : {}),
  };
  let answer: RawAnswer;
  try {
    answer = await startGit(args, {
      cwd: options.cwd,
      owner,
      supervision,
      ...(options.env ? { env: options.env } : {}),
      ...(options.input !== undefined ? { input: encodeText(options.input) } : {}),
    });
  } catch (err) {
    if (err instanceof ArgumentRefused) throw new GitError(err.message, null);
    throw new GitError(`${shown}: ${lastLine((err as Error).message)}`, null);
  }
  return settle(shown, answer);
}

/** Runs git and answers stdout, or throws a GitError naming the command and git's message. */
export async function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) {
    const message = lastLine(result.stderr);
    throw new GitError(`git ${args.join(' ')} failed (${result.code}): ${message}`, result);
  }
  return result.stdout;
}
