import type { ChildProcess } from 'node:child_process';
import { GitPluginError, GitError as SimpleGitError, type SimpleGit, simpleGit } from 'simple-git';
import type { Owner } from '../safety/owner.js';
import { DEFAULT_SILENCE_LIMIT_MS, gitEnvironment, SAFE_CONFIG, VARIABLES_SET } from './settings.js';
import { onSilence, stopChild } from './stop.js';

/**
 * How agent-janitor runs git: a simple-git instance built by `createGit` from the settings every
 * run shares. Instances are kept per identity and time limit (`gitFor`), so simple-git's own queue
 * bounds the children each of them starts. The two runs that cannot go through simple-git
 * (descriptors.ts, each.ts) take the same environment and settings from settings.ts. git.ts
 * imports this module on its first run: simple-git and what it loads (child_process, debug) cost
 * a start several milliseconds, and a pass with nothing to ask git never needs them.
 */

export { GitPluginError };

/** Children one instance runs at once; the largest caller asks for 8 at a time. */
const MAX_CHILDREN = 8;

export interface GitSettings {
  /** Run as this user (root running over another user's repository). */
  owner: Owner | null;
  silenceLimitMs: number;
  /** Aborting kills every child of the instance still running and refuses the ones not started. */
  abort?: AbortSignal;
  /** The caller's own variables, added to the scrubbed environment. */
  env?: NodeJS.ProcessEnv;
  /** Written to git's standard input (commands reading `--stdin`). */
  input?: Buffer;
  maxChildren?: number;
}

/**
 * What git answered, carried out of simple-git as the task's error: simple-git decodes a task's
 * output as UTF-8, which would lose the bytes of names that are not UTF-8, and answers no exit code;
 * its `errors` hook is the one place that sees the raw output and the code of every run.
 */
export class GitAnswer extends SimpleGitError {
  constructor(
    readonly code: number,
    readonly stdout: Buffer,
    readonly stderr: Buffer,
  ) {
    super(undefined, `git exited with ${code}`);
  }
}

/**
 * Every run ends in a rejection: a GitAnswer when git ran and exited, or simple-git's own error when
 * it was killed (time limit, abort), could not start (no git) or ended on a signal.
 */
function keepAnswer(
  error: Buffer | Error | undefined,
  result: { exitCode: number | null; stdOut: Buffer[]; stdErr: Buffer[] },
): Error {
  if (error instanceof GitPluginError) return error;
  const code = result.exitCode;
  if (typeof code === 'number' && code >= 0)
    return new GitAnswer(code, Buffer.concat(result.stdOut), Buffer.concat(result.stdErr));
  if (error instanceof Error) return error;
  return new SimpleGitError(undefined, 'git ended on a signal');
}

/** Builds a simple-git instance configured as every git run must be. */
export function createGit(settings: GitSettings): SimpleGit {
  const env = gitEnvironment(settings.env);
  const instance = simpleGit({
    baseDir: '/',
    binary: 'git',
    maxConcurrentProcesses: settings.maxChildren ?? MAX_CHILDREN,
    config: [...SAFE_CONFIG],
    trimmed: false,
    // A run is done only when git's stdout and stderr have closed: with simple-git's default a run
    // also counts as done 50 ms after git exits, output read to the end or not, and a status cut
    // short under load would look clean.
    completion: { onClose: true, onExit: false },
    ...(settings.abort ? { abort: settings.abort } : {}),
    ...(settings.owner ? { spawnOptions: { uid: settings.owner.uid, gid: settings.owner.gid } } : {}),
    ...(settings.input ? { input: () => settings.input } : {}),
    // What simple-git would otherwise refuse is what is set here on purpose: hooks and fsmonitor
    // switched off, the pager set to `cat`, GIT_EXEC_PATH (the one git variable inherited), and
    // `-C <repository>`, which callers give for the repository they ask about, and the empty
    // `--template ''` with which the demo's repositories are made without sample hooks.
    unsafe: {
      allowUnsafeConfigPaths: true,
      allowUnsafeTemplateDir: true,
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafePager: true,
      allowUnsafeExec: true,
    },
    allowEnvironment: [...OWN_VARIABLES, ...Object.keys(settings.env ?? {})],
    errors: keepAnswer,
  });
  // simple-git sets GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS=true on every run. git reads it only
  // where it parses options: an abbreviated long option (`--porc` for `--porcelain`) is refused
  // instead of expanded. Every option given here is spelled in full, so no answer changes.
  pluginsOf(instance).add(killSurely(settings.silenceLimitMs, settings.abort));
  return instance.env(env);
}

/** The part of a spawned run simple-git hands its plugins once git has started. */
interface SpawnedRun {
  spawned: ChildProcess;
  /** Records why the run failed (and sends git SIGINT): the run rejects with that error. */
  kill(error: Error): void;
}

interface PluginSet {
  add(plugin: { type: 'spawn.after'; action(input: undefined, run: SpawnedRun): void }): void;
}

/**
 * simple-git 4.0.2 (pinned exactly) takes no plugin of the caller's, but keeps the ones its options
 * build in `_plugins`; its own time limit and abort send SIGINT and never more, which a git may ignore.
 * test/git/fake-git.test.ts fails if this stops killing.
 */
function pluginsOf(instance: SimpleGit): PluginSet {
  const plugins = (instance as unknown as { _plugins?: PluginSet })._plugins;
  if (!plugins || typeof plugins.add !== 'function')
    throw new Error('simple-git keeps no plugin set: the runner cannot kill git surely');
  return plugins;
}

/**
 * Ends git when it prints nothing for `silenceLimitMs`, and when the run is aborted (after
 * simple-git's abort has recorded why and sent SIGINT): stop.ts, SIGINT then SIGKILL.
 */
function killSurely(silenceLimitMs: number, abort: AbortSignal | undefined) {
  return {
    type: 'spawn.after' as const,
    action(_input: undefined, { spawned, kill }: SpawnedRun): void {
      onSilence(spawned, silenceLimitMs, () => {
        kill(new GitPluginError(undefined, 'timeout', `killed after ${silenceLimitMs} ms without output`));
        stopChild(spawned);
      });
      const aborted = (): void => stopChild(spawned);
      abort?.addEventListener('abort', aborted);
      spawned.on('close', () => abort?.removeEventListener('abort', aborted));
    },
  };
}

/** The git variables a run may have: the ones gitEnvironment sets, and the one it inherits. */
const OWN_VARIABLES = [...VARIABLES_SET, 'GIT_EXEC_PATH'];

const instances = new Map<string, SimpleGit>();

/** The shared instance for runs as `owner` with this time limit (built on first use). */
export function gitFor(owner: Owner | null, silenceLimitMs = DEFAULT_SILENCE_LIMIT_MS): SimpleGit {
  const key = `${owner ? `${owner.uid}:${owner.gid}` : 'self'}/${silenceLimitMs}`;
  let instance = instances.get(key);
  if (!instance) {
    instance = createGit({ owner, silenceLimitMs });
    instances.set(key, instance);
  }
  // The pass's environment is read at each run, as a child started by hand would inherit it.
  return instance.env(gitEnvironment());
}
