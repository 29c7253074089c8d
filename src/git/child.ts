import type { ChildProcess, StdioOptions } from 'node:child_process';
import { closeSync, openPathSync } from '../safety/fs/descriptors.js';
import type { Owner } from '../safety/owners/owner.js';
import { spawn } from 'node:child_process';
import type { RawAnswer } from './answer.js';
import { gitEnvironment, SAFE_ARGUMENTS } from './settings.js';
import { type Supervision, superviseChild } from './supervise.js';

/**
 * The runs simple-git cannot make, started by this project itself with everything simple-git's
 * runs get (settings.ts: the environment and `-c` settings; the owner's uid and gid) and the same
 * watch (supervise.ts):
 * - paths that are not UTF-8 and that git must open itself: Node hands a child its arguments as
 *   UTF-8 text, so each is opened here and given to git as a descriptor it inherits
 *   (`/proc/self/fd/<n>`, which names that very entry); simple-git passes a child no descriptors;
 * - standard input (`--stdin` commands), written as bytes;
 * - the shell that runs a batch of gits (each.ts), in a process group of its own so that stopping
 *   it reaches the git it waits on.
 */
export interface OwnRun {
  /** As the caller gave it: handed over as well when it is not UTF-8. */
  cwd: string | undefined;
  owner: Owner | null;
  /** The caller's own variables, added to the scrubbed environment. */
  env?: NodeJS.ProcessEnv;
  input?: Buffer;
  supervision: Supervision;
}

/** `git <SAFE_ARGUMENTS> <args>`, with every path that is not UTF-8 handed over as a descriptor. */
export function runOwnGit(args: readonly string[], run: OwnRun): Promise<RawAnswer> {
  const fds: number[] = [];
  // The child's descriptors 3, 4, … are the paths handed over; it enters its working directory
  // once they are in place.
  const handOver = (p: string): string => {
    fds.push(openPathSync(p));
    return `/proc/self/fd/${2 + fds.length}`;
  };
  try {
    const cwd = run.cwd === undefined ? '/' : run.cwd.isWellFormed() ? run.cwd : handOver(run.cwd);
    const passed = args.map((arg) => (arg.isWellFormed() ? arg : handOver(arg)));
    return startChild('git', [...SAFE_ARGUMENTS, ...passed], {
      cwd,
      owner: run.owner,
      env: gitEnvironment(run.env),
      stdio: [run.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...fds],
      detached: false,
      input: run.input,
      supervision: run.supervision,
    });
  } catch (err) {
    return Promise.reject(err);
  } finally {
    // The child holds its own copies once it has started.
    for (const fd of fds) closeSync(fd);
  }
}

/**
 * `sh -c <script> sh <args…>` in `/`, as `owner`, in a process group of its own. It and every git
 * it starts carry a parent-death signal (util-linux `setpriv --pdeathsig`), so a pass that is
 * killed leaves none of them behind: the group of its own is out of reach of a signal to the
 * pass's group, and a shell's git would outlive the shell.
 */
export function runGitShell(script: string, args: readonly string[], run: Omit<OwnRun, 'cwd' | 'input'>) {
  return startChild('setpriv', [...DIES_WITH_PARENT, 'sh', '-c', script, 'sh', ...args], {
    cwd: '/',
    owner: run.owner,
    env: gitEnvironment(run.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    supervision: { ...run.supervision, group: true },
  });
}

/** What a shell of runGitShell puts before each git it starts: the same parent-death signal. */
export const DIES_WITH_PARENT: readonly string[] = ['--pdeathsig', 'KILL', '--'];

interface ChildOptions {
  cwd: string;
  owner: Owner | null;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  detached: boolean;
  input?: Buffer | undefined;
  supervision: Supervision;
}

function startChild(program: string, args: readonly string[], options: ChildOptions): Promise<RawAnswer> {
  if (options.supervision.abort?.aborted) return Promise.reject(new Error('aborted'));
  const child: ChildProcess = spawn(program, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: options.stdio,
    detached: options.detached,
    ...(options.owner ? { uid: options.owner.uid, gid: options.owner.gid } : {}),
  });
  const answer = superviseChild(child, options.supervision);
  if (child.stdin) {
    // git may exit before reading it all: its exit code tells, not EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
  }
  return answer;
}
