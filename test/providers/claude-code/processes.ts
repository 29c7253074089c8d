import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import { isClaudeCodeProcess } from '../../../src/providers/claude-code/layout.js';
import { waitFor } from '../../helpers/processes.js';
import type { RealUser } from '../../helpers/users.js';

const children: ChildProcess[] = [];

afterEach(async () => {
  // Ended before the next test looks at /proc: a stand-in still dying would be a running Claude Code of its user.
  await Promise.all(
    children.splice(0).map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return ended;
    }),
  );
});

/**
 * A real child with an environment of its own (nothing of the test's but PATH), killed after the test.
 * One that a pass takes for Claude Code (its executable `claude`, or `CLAUDECODE=1`) runs as `user`,
 * in a world that user owns: every claude-code pass of the tests running beside it reads the running
 * Claude Code of its home's owner, and must never find a stand-in of another test among them.
 */
export async function living(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; stdio?: StdioOptions; user?: RealUser } = {},
): Promise<ChildProcess & { pid: number }> {
  const env = { PATH: process.env.PATH, ...options.env };
  const vars = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  if (!options.user && isClaudeCodeProcess({ exe: command, argv: [command, ...args], vars }))
    throw new Error(`a stand-in Claude Code (${command}) runs as a test user of its own, in a world that user owns`);
  const child = spawn(command, args, {
    cwd: options.cwd ?? '/',
    env,
    stdio: options.stdio ?? 'ignore',
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
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
 * to the task's output, carrying the session's variables, run by `user`.
 */
export function shellWriting(output: string, script: string, env: NodeJS.ProcessEnv, user: RealUser) {
  const fd = openSync(output, 'a');
  try {
    return living('/bin/bash', ['-c', script], { env, stdio: ['ignore', fd, fd], user });
  } finally {
    closeSync(fd);
  }
}

/** A pid that has just ended (its process reaped): the kernel says ESRCH for it. */
export function deadPid(): number {
  const ended = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(ended.stdout.trim());
}
