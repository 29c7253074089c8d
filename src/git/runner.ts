import type { ChildProcess } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { type SimpleGitOptions, simpleGit } from 'simple-git';
import type { Owner } from '../safety/owners/owner.js';
import type { RawAnswer } from './answer.js';
import { CALLER_VARIABLES, SAFE_CONFIG, VARIABLES_SET } from './settings.js';
import { type Supervision, superviseChild } from './supervise.js';

/**
 * How agent-janitor runs git through simple-git, by its public API only. One options object per
 * identity, built once (`optionsFor`). A run gets an instance of its own made from it, because
 * simple-git hands the output of the child it starts to the instance's `outputHandler`, and
 * that is how a run finds its child: Node announces every child it creates on the `child_process`
 * diagnostics channel, and the child whose stdout is the stream handed over is the run's. The
 * child is then watched like any other (supervise.ts): its bytes, its exit code, and its end at the
 * limit on silence, SIGKILL included, which simple-git's own timeout never sends. git.ts imports
 * this module on its first run: simple-git and what it loads cost a start several milliseconds,
 * and a pass with nothing to ask git never needs them.
 */

let lastCreated: ChildProcess | null = null;
subscribe('child_process', (message) => {
  lastCreated = (message as { process: ChildProcess }).process;
});

/** Variables a run may carry: the ones gitEnvironment sets, the one it inherits, the callers' own. */
const ALLOWED_VARIABLES = [...VARIABLES_SET, 'GIT_EXEC_PATH', ...CALLER_VARIABLES];

const options = new Map<string, Readonly<Partial<SimpleGitOptions>>>();

/** The configuration of every run as `owner` (built on first use, never changed). */
function optionsFor(owner: Owner | null): Readonly<Partial<SimpleGitOptions>> {
  const key = owner ? `${owner.uid}:${owner.gid}` : 'self';
  let found = options.get(key);
  if (!found) {
    found = Object.freeze({
      baseDir: '/',
      binary: 'git',
      maxConcurrentProcesses: 1,
      config: [...SAFE_CONFIG],
      trimmed: false,
      // A run is done only when git's stdout and stderr have closed: with simple-git's default a run
      // also counts as done 50 ms after git exits, output read to the end or not, and a status cut
      // short under load would look clean.
      completion: { onClose: true, onExit: false },
      ...(owner ? { spawnOptions: { uid: owner.uid, gid: owner.gid } } : {}),
      // git's exit code is part of its answer, never an error: the answer is read from the child.
      errors: () => undefined,
      // Every variable and config key a run uses is named: anything else is refused, not logged.
      strict: true,
      allowEnvironment: ALLOWED_VARIABLES,
      allowConfig: ALLOWED_CONFIG,
      // What simple-git would otherwise refuse is set here on purpose: hooks and fsmonitor switched
      // off, the pager set to `cat`, GIT_EXEC_PATH (the one git variable inherited), `-C
      // <repository>`, which callers give for the repository they ask about, and the empty
      // `--template ''` with which the demo's repositories are made without sample hooks.
      unsafe: {
        allowUnsafeConfigPaths: true,
        allowUnsafeTemplateDir: true,
        allowUnsafeHooksPath: true,
        allowUnsafeFsMonitor: true,
        allowUnsafePager: true,
        allowUnsafeExec: true,
      },
    });
    options.set(key, found);
  }
  return found;
}

/**
 * The config keys set on a command line or written (the demo's repositories): the settings of
 * every run, the ones callers add, and the key the status batches name their worktrees by.
 */
const ALLOWED_CONFIG = [
  ...SAFE_CONFIG.map((setting) => setting.slice(0, setting.indexOf('='))),
  'core.preloadIndex',
  'log.showSignature',
  'init.defaultBranch',
  'commit.gpgsign',
  'core.autocrlf',
  'core.excludesFile',
  'extensions.worktreeConfig',
  'agent-janitor.*',
];

export interface SimpleRun {
  /** UTF-8, or a `/proc/self/fd/<n>` the caller holds open until the run ends. */
  cwd: string;
  owner: Owner | null;
  /** The whole environment of the run (settings.ts). */
  env: NodeJS.ProcessEnv;
  supervision: Supervision;
}

/** Runs `git <args>` through simple-git and answers what git wrote and its exit code. */
export async function runThroughSimpleGit(args: readonly string[], run: SimpleRun): Promise<RawAnswer> {
  if (run.supervision.abort?.aborted) throw new Error('aborted');
  const instance = simpleGit(optionsFor(run.owner));
  let answer: Promise<RawAnswer> | null = null;
  instance.outputHandler((_command, stdout, stderr) => {
    const child = lastCreated?.stdout === stdout ? lastCreated : null;
    if (child) {
      answer = superviseChild(child, run.supervision);
    } else {
      // Never expected: without its child a run could not be stopped, so it is no run of ours.
      stdout.resume();
      stderr.resume();
      answer = Promise.reject(new Error('the git simple-git started cannot be watched'));
    }
    // Read once the run is over; a rejection before then is not left unhandled.
    answer.catch(() => {});
  });
  instance.env(run.env);
  try {
    await instance.cwd({ path: run.cwd, root: false }).raw([...args]);
  } catch (err) {
    // Refused before git started (an argument, variable or setting simple-git will not pass).
    if (!answer) throw err;
  }
  if (!answer) throw new Error('simple-git started no git');
  return answer;
}
