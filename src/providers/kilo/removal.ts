import type { ApplyContext, Removal } from '../../core/types.js';
import { git } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs.js';
import { collectEvidence, type EvidenceContext, type RepoEvidence } from './evidence.js';
import { judgeRepo } from './judge.js';
import { acquireLock } from './lock.js';
import { OwnerRepos } from './owner-repo.js';

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
      if (!judged.lockDir) throw new Error(`Kilo's lock folder for ${gitdir} is not known`);
      const lock = await acquireLock(judged.lockDir, { owner: ctx.owner, log: ctx.log });
      try {
        const now = await collectEvidence(judged.repo, {
          ...context,
          owners: new OwnerRepos(),
          nowMs: Date.now(),
          lockHeldByUs: true,
          knownOwner: judged.ownerPath,
        });
        const verdict = judgeRepo(now, Date.now());
        if (verdict.decision !== 'delete') throw new Error(`no longer proven dead under Kilo's lock: ${verdict.reason}: ${verdict.detail}`);
        await assertSameFolder(gitdir, judged);
        await ctx.removeTree(gitdir);
        if (now.pin && now.ownerPath) {
          // The one ref ever deleted: the pin of this very repository, and only at the value read.
          await git(['-C', now.ownerPath, 'update-ref', '-d', now.pin.ref, now.pin.oid], { owner: ctx.owner });
        }
      } finally {
        await lock.release();
      }
    },
  };
}

async function assertSameFolder(gitdir: string, judged: RepoEvidence): Promise<void> {
  const stats = await lstatOrNull(gitdir);
  if (!stats) throw new Error(`${gitdir} disappeared after it was judged`);
  if (!stats.isDirectory() || !judged.identity || stats.ino !== judged.identity.ino || stats.dev !== judged.identity.dev) {
    throw new Error(`${gitdir} was replaced after it was judged; left alone`);
  }
}
