import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, openPathSync } from '../safety/fs.js';
import { decodeBytes, escapeBytes } from '../safety/names.js';
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

class GitError extends Error {
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

/**
 * What git is given for paths that are not UTF-8. Node hands a child its arguments and working
 * directory as UTF-8 text, which cannot carry such a path: each one (the working directory, or an
 * absolute path given as a whole argument) is opened here and passed as a descriptor, and git is
 * given `/proc/self/fd/<n>`, which names that very entry. Any other argument that is not UTF-8 is
 * refused.
 */
interface Passed {
  args: string[];
  cwd: string | undefined;
  fds: number[];
}

function passPaths(args: readonly string[], cwd: string | undefined): Passed {
  const passed: Passed = { args: [], cwd, fds: [] };
  const handOver = (p: string): string => {
    passed.fds.push(openPathSync(p));
    return `/proc/self/fd/${2 + passed.fds.length}`;
  };
  try {
    if (cwd !== undefined && !cwd.isWellFormed()) passed.cwd = handOver(cwd);
    for (const arg of args) {
      if (arg.isWellFormed()) passed.args.push(arg);
      else if (arg.startsWith('/')) passed.args.push(handOver(arg));
      else
        throw new GitError(
          `git ${args.map(escapeBytes).join(' ')}: the argument ${escapeBytes(arg)} is not UTF-8 and is no path git could be handed`,
          null,
        );
    }
  } catch (err) {
    for (const fd of passed.fds) closeSync(fd);
    throw err;
  }
  return passed;
}

/** Runs git and answers its exit code and output; never throws for a non-zero exit. */
export function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const passed = passPaths(args, options.cwd);
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn('git', [...SAFE_CONFIG, ...passed.args], {
        // Never the folder the pass started in: git run as another user may not be able to enter it.
        cwd: passed.cwd ?? '/',
        env: gitEnvironment(options.env),
        // The child's descriptors 3, 4, … are the paths handed over (its working directory is
        // entered after they are in place).
        stdio: ['pipe', 'pipe', 'pipe', ...passed.fds],
        ...(options.owner ? { uid: options.owner.uid, gid: options.owner.gid } : {}),
      }) as ChildProcessWithoutNullStreams;
    } finally {
      for (const fd of passed.fds) closeSync(fd);
    }
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
        // Paths git prints keep their bytes (src/safety/names.ts).
        stdout: decodeBytes(Buffer.concat(out)),
        stderr: decodeBytes(Buffer.concat(err)),
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
