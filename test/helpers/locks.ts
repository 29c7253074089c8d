import { readFileSync, statSync } from 'node:fs';
import { spawnLiving, waitFor } from './processes.js';

/** Whether /proc/locks has a lock on the file now. */
export function lockedNow(file: string): boolean {
  const ino = statSync(file).ino;
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .some((line) => line.includes(`:${ino} `));
}

/**
 * A real process that holds an exclusive flock on `file` as Codex does (util-linux flock, which
 * becomes the holder itself: killing it lets the lock go), ready once the kernel shows the lock.
 */
export async function holdLock(file: string): Promise<{ release(): Promise<void> }> {
  const child = spawnLiving('flock', ['--exclusive', '--no-fork', file, 'sleep', '600']);
  await waitFor(() => lockedNow(file));
  return {
    async release() {
      child.kill('SIGKILL');
      await waitFor(() => !lockedNow(file));
    },
  };
}
