import { errorMessage, RemovalStopped } from '../../model/errors.js';
import type { GuardHold, RemovalGuard } from '../../provider-api/candidate.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import { takeFlocks, type LockTable } from '../../safety/locks/flock.js';

/** A tool's own sign that it is at work on its databases: each is enough to leave their logs alone. */
export interface ToolSignal {
  /** At plan: null where the tool is not at work, else why it is (a sentence naming the signal). */
  atWork(): string | null;
  /** Proves it again right before the checkpoint, and holds what it takes until the checkpoint ends. */
  guard: RemovalGuard;
}

/**
 * A lock file the tool flocks while it maintains its databases (Codex's `.sqlite-maintenance.lock`):
 * held by another process, the tool is at work. Right before the checkpoint the pass takes the
 * lock itself, without waiting, and holds it through the checkpoint, so that no process of the
 * tool begins its own maintenance meanwhile. A lock file that is not there locks nothing and is
 * never made; one that is no regular file, or whose state cannot be read, counts as held.
 */
export function flockSignal(file: string, locks: LockTable, whose: string): ToolSignal {
  return {
    atWork() {
      let stats: ReturnType<typeof lstatOrNullSync>;
      try {
        stats = lstatOrNullSync(file);
      } catch (err) {
        return `${whose} ${file} cannot be looked at (${errorMessage(err)})`;
      }
      if (!stats) return null;
      if (!stats.isFile()) return `${whose} ${file} is not a regular file, so whether it is held cannot be told`;
      const holders = locks.holdersOf(stats.dev, stats.ino);
      if (holders === null) return `whether ${whose} ${file} is held cannot be told: ${locks.unreadable}`;
      if (holders.length === 0) return null;
      const pids = [...new Set(holders.map((holder) => holder.pid).filter((pid) => pid > 0))];
      return `${whose} ${file} is held${pids.length > 0 ? ` by process ${pids.join(', ')}` : ''}`;
    },
    guard: {
      async recheck(): Promise<GuardHold> {
        let attempt: Awaited<ReturnType<typeof takeFlocks>>;
        try {
          attempt = await takeFlocks([file]);
        } catch (err) {
          throw new RemovalStopped('refused', 'in-use', `${whose} ${file} cannot be taken: ${errorMessage(err)}`);
        }
        if ('busy' in attempt)
          throw new RemovalStopped(
            'refused',
            'in-use',
            `${whose} ${file} is held by another process just before the checkpoint`,
          );
        const held = attempt.held;
        return {
          assert() {
            try {
              held.assertStillLocked();
            } catch (err) {
              throw new RemovalStopped('refused', 'in-use', `${errorMessage(err)}; left alone`);
            }
          },
          release: async () => held.release(),
        };
      },
    },
  };
}
