import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import path from 'node:path';
import { closeSync, openPathSync } from '../safety/fs/descriptors.js';
import { escapeBytes } from '../safety/fs/names.js';
import type { Owner } from '../safety/owners/owner.js';
import type { RawAnswer } from './answer.js';
import { gitEnvironment, SAFE_ARGUMENTS } from './settings.js';
import { type Supervision, superviseChild } from './supervise.js';

/**
 * How every git of a pass is started, in one place:
 * - the environment: the pass's own scrubbed of git's variables, no global or system config, no
 *   optional locks, the C locale, no pager, no prompt (settings.ts `gitEnvironment`);
 * - `-c` settings that keep a repository's config from running a program (settings.ts);
 * - as the owner's uid and gid when the pass runs as root over another user's repository;
 * - the limit on silence: stopped after it prints nothing for so long, SIGINT first so that git
 *   removes its lock files, SIGKILL after a grace, pipes closed (supervise.ts, stop.ts);
 * - paths that are not UTF-8: the working directory is opened here and entered by the child as
 *   `/proc/self/fd/<n>` before it runs git; an absolute argument is handed to git as a descriptor
 *   it inherits (`/proc/self/fd/<k>`); Node passes a child its arguments as UTF-8 text, which
 *   cannot carry such a name;
 * - standard input written as bytes (`--stdin` commands);
 * - a batch (each.ts): one shell that runs many gits, in a process group of its own so that
 *   stopping it reaches the git it waits on, and with a parent-death signal on it and on each git,
 *   so that a pass that is killed leaves none behind.
 * Nothing else starts git.
 */
export interface GitStart {
  /** The folder git runs in (`/` when none is asked for: git run as another user may not enter ours). */
  cwd: string | undefined;
  owner: Owner | null;
  /** The caller's own variables, added to the scrubbed environment. */
  env?: NodeJS.ProcessEnv;
  input?: Buffer;
  supervision: Supervision;
}

/** Its arguments cannot be given to git: a relative name that is not UTF-8. */
export class ArgumentRefused extends Error {
  override name = 'ArgumentRefused';
}

/** `git <SAFE_ARGUMENTS> <args>`, answered with its exit code and the bytes it wrote. */
export function startGit(args: readonly string[], start: GitStart): Promise<RawAnswer> {
  const fds: number[] = [];
  const handOver = (p: string): string => {
    fds.push(openPathSync(p));
    return `/proc/self/fd/${fds[fds.length - 1]}`;
  };
  // An argument's descriptor is the child's 3, 4, …, after its three standard streams.
  const inherited: number[] = [];
  const handOverArgument = (p: string): string => {
    inherited.push(openPathSync(p));
    return `/proc/self/fd/${2 + inherited.length}`;
  };
  try {
    const cwd = start.cwd === undefined ? '/' : start.cwd.isWellFormed() ? start.cwd : handOver(start.cwd);
    const passed = args.map((arg, k) => {
      if (arg.isWellFormed()) return arg;
      if (path.isAbsolute(arg)) return handOverArgument(arg);
      // `-C <folder>` names a folder relative to where git starts.
      if (args[k - 1] === '-C' && start.cwd !== undefined) return handOverArgument(path.resolve(start.cwd, arg));
      throw new ArgumentRefused(
        `git ${args.map(escapeBytes).join(' ')}: the argument ${escapeBytes(arg)} is not UTF-8 and is no absolute path git could be handed`,
      );
    });
    return startChild('git', [...SAFE_ARGUMENTS, ...passed], {
      cwd,
      owner: start.owner,
      env: gitEnvironment(start.env),
      stdio: [start.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...inherited],
      detached: false,
      input: start.input,
      supervision: start.supervision,
    });
  } catch (err) {
    return Promise.reject(err);
  } finally {
    // The child holds its own copies once it has started.
    for (const fd of [...fds, ...inherited]) closeSync(fd);
  }
}

/** What a shell of a batch puts before each git it starts: the same parent-death signal. */
export const DIES_WITH_PARENT: readonly string[] = ['--pdeathsig', 'KILL', '--'];

/**
 * `sh -c <script> sh <args…>` in `/`, as `owner`, in a process group of its own, under util-linux
 * `setpriv --pdeathsig`: the group of its own is out of reach of a signal to the pass's group, and
 * a shell's git would otherwise outlive the shell.
 */
export function startGitShell(
  script: string,
  args: readonly string[],
  start: Omit<GitStart, 'cwd' | 'input'>,
): Promise<RawAnswer> {
  return startChild('setpriv', [...DIES_WITH_PARENT, 'sh', '-c', script, 'sh', ...args], {
    cwd: '/',
    owner: start.owner,
    env: gitEnvironment(start.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    supervision: { ...start.supervision, group: true },
  });
}

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
