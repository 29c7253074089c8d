import { RemovalStopped, errorMessage, stopFor } from '../../model/errors.js';
import type { GuardHold, Removal } from '../../provider-api/candidate.js';
import type { OwnerJudgement } from '../../model/types.js';
import { takeFlocks, type HeldFlocks } from '../../safety/locks/flock.js';

/** A lock file of Codex's the removal holds; a required one must be there to be held. */
interface LockToHold {
  file: string;
  required: boolean;
  /** Inside the folder that goes (a staging folder's own `.lock`): its rename into quarantine moves it. */
  inside?: boolean;
}

export interface LockedRemoval {
  /** Taken first, in order, without waiting. */
  locks: LockToHold[];
  /**
   * Lock files looked for only once the first are held (a staging folder's `.lock`, which Codex
   * makes under `.staging.lock`: one looked for earlier may be made in between), all taken too.
   */
  thenLocks?: () => Promise<LockToHold[]>;
  /** The case proved again under the locks. */
  rejudge?: () => Promise<OwnerJudgement> | OwnerJudgement;
}

/**
 * A folder of Codex's scratch goes while this pass holds the flocks Codex itself takes around it
 * (src/safety/locks/flock.ts): taken without waiting right before the rename into quarantine, kept
 * through the last proof and the delete, let go after. A lock held elsewhere stops the removal
 * (`staging-locked`), and the next pass looks again; so does one that is gone or cannot be taken.
 */
export function lockedRemoval(plan: LockedRemoval): Removal {
  return {
    type: 'tree',
    guard: {
      async recheck(): Promise<GuardHold> {
        const holds: HeldFlocks[] = [];
        const release = () => {
          for (const held of holds.splice(0)) held.release();
        };
        try {
          holds.push(await take(plan.locks));
          if (plan.thenLocks) holds.push(await take(await plan.thenLocks()));
          const verdict = await plan.rejudge?.();
          if (verdict && verdict.decision !== 'delete') throw stopFor(verdict);
        } catch (err) {
          release();
          throw err;
        }
        return {
          assert() {
            try {
              for (const held of holds) held.assertStillLocked();
            } catch (err) {
              throw new RemovalStopped('refused', 'staging-locked', `${errorMessage(err)}; left alone`);
            }
          },
          release: async () => release(),
        };
      },
    },
  };
}

async function take(locks: readonly LockToHold[]): Promise<HeldFlocks> {
  let attempt: Awaited<ReturnType<typeof takeFlocks>>;
  try {
    attempt = await takeFlocks(
      locks.map((lock) => lock.file),
      { movingWithItem: locks.filter((lock) => lock.inside).map((lock) => lock.file) },
    );
  } catch (err) {
    throw new RemovalStopped(
      'refused',
      'staging-lock-unusable',
      `a lock of Codex's cannot be taken: ${errorMessage(err)}`,
    );
  }
  if ('busy' in attempt)
    throw new RemovalStopped(
      'refused',
      'staging-locked',
      `${attempt.busy} is held by another process just before the delete`,
    );
  const gone = locks.find((lock) => lock.required && attempt.missing.includes(lock.file));
  if (gone) {
    attempt.held.release();
    throw new RemovalStopped(
      'refused',
      'staging-lock-unusable',
      `${gone.file} is gone, so it cannot be held while the folder goes`,
    );
  }
  return attempt.held;
}
