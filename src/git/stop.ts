import type { ChildProcess } from 'node:child_process';

/** How long git has after SIGINT to remove the lock files it holds before it is killed outright. */
export const STOP_GRACE_MS = 2_000;

/**
 * Ends a git run that must not go on (its time limit, an abort). SIGINT first: git catches it to
 * remove the lock files it has taken (`index.lock`, a worktree's `locked`) and dies, while SIGKILL
 * would leave them behind and lock the agent out of its own repository. A git still there after
 * the grace, one that ignores SIGINT, gets SIGKILL. Once git is gone its pipes are closed: a child
 * of git's left holding them would otherwise keep the run open.
 */
export function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): void {
  const closePipes = (): void => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  if (child.exitCode !== null || child.signalCode !== null) {
    closePipes();
    return;
  }
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    closePipes();
  }, graceMs);
  child.once('exit', () => {
    clearTimeout(timer);
    closePipes();
  });
  if (!child.killed) child.kill('SIGINT');
}
