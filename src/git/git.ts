import { decodeBytes, encodeText, escapeBytes } from '../safety/names.js';
import type { Owner } from '../safety/owner.js';
import { runWithDescriptors } from './descriptors.js';
import { type HandoverPlan, HandoverRefused, handOver, NeedsDescriptors, planHandover } from './handover.js';
import { DEFAULT_SILENCE_LIMIT_MS } from './settings.js';

export { gitEnvironment } from './settings.js';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd?: string;
  /** Run as this user (root running over another user's repository). */
  owner?: Owner | null;
  /** git is killed after this long without printing anything. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Written to git's standard input (`--stdin` commands), names' bytes kept (src/safety/names.ts). */
  input?: string;
}

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly result: GitResult | null,
  ) {
    super(message);
  }
}

/**
 * Runs git and answers its exit code and output; never throws for a non-zero exit. Throws a
 * GitError when git could not be run: refused arguments, no git, killed by its time limit.
 */
export async function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const shown = `git ${args.map(escapeBytes).join(' ')}`;
  const owner = options.owner ?? null;
  const silenceLimitMs = options.timeoutMs ?? DEFAULT_SILENCE_LIMIT_MS;
  let plan: HandoverPlan;
  try {
    plan = planHandover(args, options.cwd);
  } catch (err) {
    if (err instanceof NeedsDescriptors) return viaDescriptors(shown, args, options, owner, silenceLimitMs);
    if (err instanceof HandoverRefused) throw new GitError(err.message, null);
    throw err;
  }
  const { createGit, GitAnswer, GitPluginError, gitFor } = await import('./runner.js');
  // A run with input or variables of its own is the only one of its kind: it gets an instance of
  // its own, built the same way.
  const instance =
    options.input !== undefined || options.env !== undefined
      ? createGit({
          owner,
          silenceLimitMs,
          ...(options.env ? { env: options.env } : {}),
          ...(options.input !== undefined ? { input: encodeText(options.input) } : {}),
        })
      : gitFor(owner, silenceLimitMs);
  const place = handOver(plan);
  try {
    // Every run rejects (runner.ts): with git's answer, or with why there is none.
    await instance.cwd({ path: place.cwd, root: false }, () => {}).raw(plan.args);
    throw new GitError(`${shown}: simple-git answered without git's output`, null);
  } catch (err) {
    if (err instanceof GitAnswer)
      return {
        code: err.code,
        // Paths git prints keep their bytes (src/safety/names.ts).
        stdout: decodeBytes(err.stdout),
        stderr: decodeBytes(err.stderr),
      };
    if (err instanceof GitError) throw err;
    const why = err instanceof GitPluginError ? `${err.plugin ?? 'stopped'}: ${err.message}` : (err as Error).message;
    throw new GitError(`${shown}: ${lastLine(why)}`, null);
  } finally {
    place.release();
  }
}

/** The run descriptors.ts makes, for the one kind of path simple-git cannot carry. */
async function viaDescriptors(
  shown: string,
  args: readonly string[],
  options: GitOptions,
  owner: Owner | null,
  timeoutMs: number,
): Promise<GitResult> {
  try {
    const answer = await runWithDescriptors(args, {
      cwd: options.cwd,
      owner,
      timeoutMs,
      ...(options.env ? { env: options.env } : {}),
      ...(options.input !== undefined ? { input: encodeText(options.input) } : {}),
    });
    return { code: answer.code, stdout: decodeBytes(answer.stdout), stderr: decodeBytes(answer.stderr) };
  } catch (err) {
    throw new GitError(`${shown}: ${(err as Error).message}`, null);
  }
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

/** git's last line on stderr: its `fatal:` or `error:` message. */
export function lastLine(stderr: string): string {
  return stderr.trim().split('\n').pop() ?? '';
}
