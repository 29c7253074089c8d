import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';

const children: ChildProcess[] = [];

/** A real long-lived child process; killed after the test. */
export function spawnLiving(command: string, args: string[], options: { cwd?: string } = {}): ChildProcess {
  const child = spawn(command, args, { cwd: options.cwd, stdio: 'ignore' });
  children.push(child);
  return child;
}

/** A `sleep` whose working directory is `cwd`. */
export function sleeperIn(cwd: string): ChildProcess {
  return spawnLiving('sleep', ['600'], { cwd });
}

/** A process that holds an exclusive flock on `file` (util-linux flock), ready once it returns. */
export async function holdFlock(file: string): Promise<ChildProcess> {
  const child = spawnLiving('flock', ['--exclusive', file, 'sleep', '600']);
  await waitFor(() => lockedInProcLocks(file));
  return child;
}

async function lockedInProcLocks(file: string): Promise<boolean> {
  const { readFileSync, statSync } = await import('node:fs');
  const ino = statSync(file).ino;
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .some((line) => line.includes(`:${ino} `));
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
