import path from 'node:path';
import { errorMessage, RemovalStopped, stopFor } from '../../model/errors.js';
import type { GuardContext, GuardHold, Removal } from '../../provider-api/candidate.js';
import { lastLine, runGit } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import type { Owner } from '../../safety/owners/owner.js';
import { collectEvidence, type EvidenceContext, type OwnerSource, type RepoEvidence } from './evidence.js';
import { judgeRepo, lockHeld } from './judge.js';
import { lockDirsOf, surveyLocks, type SnapshotLocks } from './lock-places.js';
import { usesSnapshotLock } from './layout.js';
import { acquireLock, LockBusyError, type HeldLock } from './lock.js';
import { inspectOwnerRepo, recheckOwnerRepo, type OwnerRepoFacts } from './owner-repo.js';

/**
 * Deletes a checkpoint repository the way Kilo's own cleanup does, and under Kilo's own lock so
 * that no Kilo process starts a snapshot or a materialization of it meanwhile: take the lock,
 * prove again (under the lock) that it is dead; the executor then renames it into quarantine,
 * takes the last proof and removes it, each step only while the lock is still ours; then its pin
 * in the owner repository is dropped, and the lock released.
 */
export function checkpointRemoval(judged: RepoEvidence, context: Omit<EvidenceContext, 'nowMs' | 'owners'>): Removal {
  return {
    type: 'tree',
    guard: {
      async recheck(ctx: GuardContext): Promise<GuardHold> {
        const { gitdir } = judged.repo;
        const locking = usesSnapshotLock(judged.app);
        if (locking && !context.locks)
          throw new RemovalStopped(
            'refused',
            'lock-location-unknown',
            `the snapshot lock folder for ${gitdir} is not known`,
          );
        const lock =
          locking && context.locks
            ? await takeLocks({ locks: context.locks, gitdir, known: context.known ?? [gitdir] }, ctx)
            : null;
        try {
          const now = await collectEvidence(judged.repo, {
            ...context,
            owners: ownerAgain(judged),
            nowMs: Date.now(),
            lockHeldByUs: true,
            knownOwner: judged.ownerPath,
          });
          const verdict = judgeRepo(now, Date.now());
          if (verdict.decision !== 'delete') throw stopFor(verdict);
          await assertSameFolder(gitdir, judged);
          return {
            assert: () => assertStillOurs(lock),
            afterRemoval: async () => {
              if (now.pin && now.ownerPath) return dropPin(now.ownerPath, now.pin, ctx.owner);
              return undefined;
            },
            release: async () => lock?.release(),
          };
        } catch (err) {
          await lock?.release();
          throw err;
        }
      },
    },
  };
}

/**
 * Kilo Code's snapshot lock of a repository, taken right before one of git's temporary files in it
 * goes and held until it is gone, so that no Kilo Code process snapshots, materializes or collects
 * the repository meanwhile. A lock held by a live process stops it (`kilo-lock-held`).
 */
export function garbageGuard(scope: LockScope): NonNullable<Removal['guard']> {
  return {
    async recheck(ctx: GuardContext): Promise<GuardHold> {
      const lock = await takeLocks(scope, ctx);
      return { assert: () => assertStillOurs(lock), release: async () => lock.release() };
    },
  };
}

/** A repository whose lock a guard takes, and what tells Kilo Code's spellings of it apart from others'. */
export interface LockScope {
  locks: SnapshotLocks;
  gitdir: string;
  /** Every repository of the data folder the pass knows of: their own locks do not stop this one. */
  known: readonly string[];
}

/** The locks a guard holds, under every spelling of one repository. */
interface HeldLocks {
  assertHeld(): void;
  release(): Promise<void>;
}

/**
 * Takes the repository's lock under every spelling of its path Kilo Code could have hashed (rule
 * 25): a Kilo Code process that spells it any of these ways then waits for the pass, as it waits
 * for another Kilo Code. A Kilo Code whose spelling the pass cannot know (a `$HOME` it cannot see)
 * makes a lock no known repository's spelling names: while one is held, taken or just before each
 * step that cannot be undone, the removal stops.
 */
async function takeLocks(scope: LockScope, ctx: GuardContext): Promise<HeldLocks> {
  const held: HeldLock[] = [];
  const releaseAll = async () => {
    for (const lock of held.splice(0).reverse()) await lock.release();
  };
  try {
    for (const lockDir of lockDirsOf(scope.locks, scope.gitdir)) held.push(await takeLock(lockDir, ctx));
    assertNoOtherLock(scope, held);
  } catch (err) {
    await releaseAll();
    throw err;
  }
  const ours = [...held];
  return {
    assertHeld() {
      for (const lock of ours) assertStillOurs(lock);
      assertNoOtherLock(scope, ours);
    },
    release: releaseAll,
  };
}

/** No held lock in the folder but ours and other repositories' own: one of unknown spelling may be this one's. */
function assertNoOtherLock(scope: LockScope, ours: readonly HeldLock[]): void {
  const mine = new Set(ours.map((lock) => lock.lockDir));
  const survey = surveyLocks(scope.locks, scope.known, Date.now(), mine);
  if (survey.problem) throw new RemovalStopped('refused', 'evidence-unreadable', survey.problem);
  const other = survey.unattributed[0];
  if (!other) return;
  const lock = survey.held.get(other);
  throw new RemovalStopped(
    'refused',
    'kilo-lock-held',
    lockHeld({ app: 'kilo', lockDir: other, lockUnattributed: true }, lock ?? { ageMs: 0 }),
  );
}

async function takeLock(lockDir: string, ctx: GuardContext): Promise<HeldLock> {
  try {
    return await acquireLock(lockDir, { owner: ctx.owner, log: ctx.log });
  } catch (err) {
    if (err instanceof LockBusyError) throw new RemovalStopped('refused', 'kilo-lock-held', err.message);
    throw err;
  }
}

/** The lock still carries our token and a fresh heartbeat, or the removal stops (refused, not failed). */
function assertStillOurs(lock: HeldLock | HeldLocks | null): void {
  try {
    lock?.assertHeld();
  } catch (err) {
    if (err instanceof RemovalStopped) throw err;
    throw new RemovalStopped('refused', 'kilo-lock-held', errorMessage(err));
  }
}

/** R as the pass found it, looked at again under the lock (see recheckOwnerRepo). */
function ownerAgain(judged: RepoEvidence): OwnerSource {
  return {
    get(repo: string): Promise<OwnerRepoFacts> {
      const known = judged.owner;
      return known && path.resolve(repo) === known.path
        ? recheckOwnerRepo(known)
        : inspectOwnerRepo(path.resolve(repo));
    },
  };
}

/**
 * The one ref ever deleted: the pin of this very repository, and only at the value read (git
 * compares and deletes in one step). A pin already gone (Kilo materialized the repository before
 * the lock was ours) leaves nothing to drop; a pin that moved is left where it is, and said so.
 */
async function dropPin(
  ownerPath: string,
  pin: { ref: string; oid: string },
  owner: Owner | null,
): Promise<string | undefined> {
  const dropped = await runGit(['-C', ownerPath, 'update-ref', '-d', pin.ref, pin.oid], { owner });
  if (dropped.code === 0) return undefined;
  const left = await runGit(['-C', ownerPath, 'for-each-ref', '--format=%(objectname)', pin.ref], { owner });
  if (left.code === 0 && left.stdout.trim() === '') return undefined;
  const now = left.code === 0 ? left.stdout.trim() : null;
  if (now && now !== pin.oid)
    return `its pin ${pin.ref} in ${ownerPath} is left: it moved from ${pin.oid}, the value read, to ${now}`;
  throw new Error(
    `the pin ${pin.ref} in ${ownerPath} was not dropped at ${pin.oid}, the value read (it is now ${now ?? 'unreadable'}): ${lastLine(dropped.stderr)}`,
  );
}

async function assertSameFolder(gitdir: string, judged: RepoEvidence): Promise<void> {
  const stats = await lstatOrNull(gitdir);
  const changed = (detail: string) => new RemovalStopped('refused', 'changed-during-inspection', detail);
  if (!stats) throw changed(`${gitdir} disappeared after it was judged`);
  if (
    !stats.isDirectory() ||
    !judged.identity ||
    stats.ino !== judged.identity.ino ||
    stats.dev !== judged.identity.dev
  ) {
    throw changed(`${gitdir} was replaced after it was judged; left alone`);
  }
}
