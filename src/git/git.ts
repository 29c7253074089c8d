import { spawn } from 'node:child_process';
import type { Owner } from '../safety/owner.js';
import { scrubGitEnvironment } from './environment.js';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd?: string;
  /** Run as this user (root running over another user's repository). */
  owner?: Owner | null;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Written to git's standard input (`--stdin` commands); without it git reads an empty input. */
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
 * The environment every git call runs with: the pass's own, scrubbed of every variable that could
 * point git at another repository or change its answer (see environment.ts), then no optional
 * locks (a status never takes an agent's index.lock), the C locale (messages we parse), no pager,
 * no prompt. `extra` is the caller's own and is kept as given.
 */
export function gitEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...scrubGitEnvironment(process.env),
    ...extra,
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
  };
}

// A repository's own config must never make git run a program of its choosing on our behalf.
const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'safe.directory=*', '-c', 'core.hooksPath=/dev/null'];

/** Runs git and answers its exit code and output; never throws for a non-zero exit. */
export function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...SAFE_CONFIG, ...args], {
      // Never the folder the pass started in: git run as another user may not be able to enter it.
      cwd: options.cwd ?? '/',
      env: gitEnvironment(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.owner ? { uid: options.owner.uid, gid: options.owner.gid } : {}),
    });
    // git may exit before reading it all (a bad revision): its exit code tells, not EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new GitError(`git ${args.join(' ')}: ${error.message}`, null));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
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
