import type { ChildProcess } from 'node:child_process';

/** How long git has after SIGINT to remove the lock files it holds before it is killed outright. */
export const STOP_GRACE_MS = 2_000;

/**
 * Ends a git run that must not go on (its time limit, an abort). SIGINT first: git catches it to
 * remove the lock files it has taken (`index.lock`, a worktree's `locked`) and dies, while SIGKILL
 * would leave them behind and lock the agent out of its own repository. A git still there after
 * the grace, one that ignores SIGINT, gets SIGKILL. Once git is gone its pipes are closed: a child
 * of git's left holding them would otherwise keep the run open. With `group`, the signals go to
 * the child's process group (a child started `detached`), so that they reach the git it started.
 */
export function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS, { group = false } = {}): void {
  const signal = (name: NodeJS.Signals): void => {
    if (!group || child.pid === undefined) {
      child.kill(name);
      return;
    }
    try {
      process.kill(-child.pid, name);
    } catch {
      // ESRCH: the whole group is gone already.
    }
  };
  const closePipes = (): void => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  if (child.exitCode !== null || child.signalCode !== null) {
    closePipes();
    return;
  }
  const timer = setTimeout(() => {
    signal('SIGKILL');
    closePipes();
  }, graceMs);
  child.once('exit', () => {
    // A group keeps its SIGKILL: the git a shell waited on may outlive the shell.
    if (!group) clearTimeout(timer);
    closePipes();
  });
  if (group || !child.killed) signal('SIGINT');
}

/**
 * Calls `stop` once the child has printed nothing (on stdout or stderr) for `silenceMs`; the clock
 * starts again at every chunk and stops when the child's output closes.
 */
export function onSilence(child: ChildProcess, silenceMs: number, stop: () => void): void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(stop, silenceMs);
  };
  child.stdout?.on('data', arm);
  child.stderr?.on('data', arm);
  child.once('close', () => clearTimeout(timer));
  arm();
}
