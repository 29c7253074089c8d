import path from 'node:path';
import type { ApplyContext, Removal } from '../../core/types.js';
import { lastLine, runGit } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs.js';
import type { Owner } from '../../safety/owner.js';
import { collectEvidence, type EvidenceContext, type OwnerSource, type RepoEvidence } from './evidence.js';
import { judgeRepo } from './judge.js';
import { usesSnapshotLock } from './layout.js';
import { acquireLock } from './lock.js';
import { inspectOwnerRepo, recheckOwnerRepo, type OwnerRepoFacts } from './owner-repo.js';

/**
 * Deletes a checkpoint repository the way Kilo's own cleanup does, and under Kilo's own lock so
 * that no Kilo process starts a snapshot or a materialization of it meanwhile: take the lock,
 * prove again (under the lock) that it is dead, quarantine-rename and remove it, drop its pin in
 * the owner repository, release the lock.
 */
export function checkpointRemoval(judged: RepoEvidence, context: Omit<EvidenceContext, 'nowMs' | 'owners'>): Removal {
  return {
    type: 'custom',
    async apply(ctx: ApplyContext): Promise<void> {
      const { gitdir } = judged.repo;
      const locking = usesSnapshotLock(judged.app);
      if (locking && !judged.lockDir) throw new Error(`the snapshot lock folder for ${gitdir} is not known`);
      const lock =
        locking && judged.lockDir ? await acquireLock(judged.lockDir, { owner: ctx.owner, log: ctx.log }) : null;
      try {
        const now = await collectEvidence(judged.repo, {
          ...context,
          owners: ownerAgain(judged),
          nowMs: Date.now(),
          lockHeldByUs: true,
          knownOwner: judged.ownerPath,
        });
        const verdict = judgeRepo(now, Date.now());
        if (verdict.decision !== 'delete')
          throw new Error(`no longer proven dead under the snapshot lock: ${verdict.reason}: ${verdict.detail}`);
        await assertSameFolder(gitdir, judged);
        // Nothing is awaited between this look and the quarantine rename.
        lock?.assertHeld();
        await ctx.removeTree(gitdir);
        if (now.pin && now.ownerPath) await dropPin(now.ownerPath, now.pin, ctx.owner);
      } finally {
        await lock?.release();
      }
    },
  };
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
 * the lock was ours) leaves nothing to drop; a pin that moved is left where it is.
 */
async function dropPin(ownerPath: string, pin: { ref: string; oid: string }, owner: Owner | null): Promise<void> {
  const dropped = await runGit(['-C', ownerPath, 'update-ref', '-d', pin.ref, pin.oid], { owner });
  if (dropped.code === 0) return;
  const left = await runGit(['-C', ownerPath, 'for-each-ref', '--format=%(objectname)', pin.ref], { owner });
  if (left.code === 0 && left.stdout.trim() === '') return;
  const problem = lastLine(dropped.stderr);
  throw new Error(
    `the pin ${pin.ref} in ${ownerPath} was not dropped at ${pin.oid}, the value read (it is now ${left.stdout.trim() || 'unreadable'}): ${problem}`,
  );
}

async function assertSameFolder(gitdir: string, judged: RepoEvidence): Promise<void> {
  const stats = await lstatOrNull(gitdir);
  if (!stats) throw new Error(`${gitdir} disappeared after it was judged`);
  if (
    !stats.isDirectory() ||
    !judged.identity ||
    stats.ino !== judged.identity.ino ||
    stats.dev !== judged.identity.dev
  ) {
    throw new Error(`${gitdir} was replaced after it was judged; left alone`);
  }
}
