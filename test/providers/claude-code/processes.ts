import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import { waitFor } from '../../helpers/processes.js';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A real child with an environment of its own (nothing of the test's but PATH), killed after the test. */
export async function living(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; stdio?: StdioOptions } = {},
): Promise<ChildProcess & { pid: number }> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? '/',
    env: { PATH: process.env.PATH, ...options.env },
    stdio: options.stdio ?? 'ignore',
  });
  children.push(child);
  const pid = child.pid as number;
  // Running its own program (not the fork of this one) before the test looks at it.
  await waitFor(() => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command.split('/').pop()?.slice(0, 15);
    } catch {
      return false;
    }
  });
  return child as ChildProcess & { pid: number };
}

/**
 * A background shell as Claude Code starts one: `/bin/bash -c <script>` writing on its fds 1 and 2
 * to the task's output, carrying the session's variables.
 */
export function shellWriting(output: string, script: string, env: NodeJS.ProcessEnv) {
  const fd = openSync(output, 'a');
  try {
    return living('/bin/bash', ['-c', script], { env, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
}

/** A pid that has just ended (its process reaped): the kernel says ESRCH for it. */
export function deadPid(): number {
  const ended = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(ended.stdout.trim());
}
