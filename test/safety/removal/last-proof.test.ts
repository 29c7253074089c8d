import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, renameSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeLastProof } from '../../../src/safety/removal/last-proof.js';
import { scanProcesses } from '../../../src/safety/processes/processes.js';
import { changedSince, CLOCK_MARGIN_MS } from '../../../src/safety/since.js';
import { evidenceMoment } from '../../helpers/execute.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { sleeperIn, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/** A tree three days old, renamed as the executor renames it, and the moment its pass began. */
async function quarantined(prepare: (judgedAt: string) => void = () => {}) {
  const dir = tempDir('aj-proof-unit-');
  const judgedAt = path.join(dir, 'item');
  put(path.join(judgedAt, 'a', 'b', 'deep.txt'), 'deep\n');
  put(path.join(judgedAt, 'top.txt'), 'top\n');
  prepare(judgedAt);
  backdate(judgedAt, daysAgo(3));
  const sinceMs = await evidenceMoment();
  const tree = path.join(dir, '.item.cleanup-00000000-0000-4000-8000-000000000000');
  renameSync(judgedAt, tree);
  return { dir, judgedAt, tree, sinceMs, subject: { tree, judgedAt, renamed: true, ownerUid: null } };
}

describe('the last proof on a quarantined tree', () => {
  it('lets an unchanged tree go, its rename allowed, and counts every entry', async () => {
    const q = await quarantined();
    expect(takeLastProof(q.subject, q.sinceMs, scanProcesses())).toEqual({ stop: null, entries: 5 });
  });

  it('keeps a tree with an entry changed after the moment, however its mtime is dated, and names it where it was judged', async () => {
    const q = await quarantined();
    const file = path.join(q.tree, 'a', 'b', 'deep.txt');
    utimesSync(file, daysAgo(10), daysAgo(10));
    const proof = takeLastProof(q.subject, q.sinceMs, null);
    expect(proof.stop?.reason).toBe('changed-during-inspection');
    expect(proof.stop?.detail).toContain(`${path.join(q.judgedAt, 'a', 'b', 'deep.txt')} changed at`);
  });

  it('keeps a tree whose renamed top folder lost an entry (its mtime), and one whose top was not renamed but changed (its ctime)', async () => {
    const q = await quarantined();
    renameSync(path.join(q.tree, 'top.txt'), path.join(q.dir, 'taken-out.txt'));
    expect(takeLastProof(q.subject, q.sinceMs, null).stop?.detail).toMatch(/item changed at .* \(mtime\)/);
    const r = await quarantined();
    expect(takeLastProof({ ...r.subject, renamed: false }, r.sinceMs, null).stop?.detail).toMatch(
      /item changed at .* \(ctime\)/,
    );
  });

  it.runIf(process.geteuid?.() === 0)(
    'keeps a tree holding an entry of another uid, or a folder its owner cannot empty',
    async () => {
      const owner = 4242;
      const mine = (judgedAt: string) => {
        for (const p of [
          judgedAt,
          path.join(judgedAt, 'a'),
          path.join(judgedAt, 'a', 'b'),
          path.join(judgedAt, 'a', 'b', 'deep.txt'),
          path.join(judgedAt, 'top.txt'),
        ])
          chownSync(p, owner, owner);
      };
      const other = await quarantined((judgedAt) => {
        mine(judgedAt);
        chownSync(path.join(judgedAt, 'a', 'b', 'deep.txt'), 4999, 4999);
      });
      expect(takeLastProof({ ...other.subject, ownerUid: owner }, other.sinceMs, null).stop?.detail).toBe(
        `${path.join(other.judgedAt, 'a', 'b', 'deep.txt')} belongs to uid 4999, not to the item's owner (uid ${owner})`,
      );
      const closed = await quarantined((judgedAt) => {
        mine(judgedAt);
        chmodSync(path.join(judgedAt, 'a'), 0o500);
      });
      expect(takeLastProof({ ...closed.subject, ownerUid: owner }, closed.sinceMs, null).stop).toMatchObject({
        reason: 'foreign-owner',
      });
      chmodSync(path.join(closed.tree, 'a'), 0o755);
      const fine = await quarantined(mine);
      expect(takeLastProof({ ...fine.subject, ownerUid: owner }, fine.sinceMs, null).stop).toBeNull();
    },
  );

  it('keeps a tree a process holds by identity, or got into by path, from the fresh look at /proc', async () => {
    const q = await quarantined();
    const sleeper = sleeperIn(path.join(q.tree, 'a', 'b'));
    const folder = lstatSync(path.join(q.tree, 'a', 'b'));
    await waitFor(() => scanProcesses().identities.holdersOf(folder.dev, folder.ino) !== undefined);
    const proof = takeLastProof(q.subject, q.sinceMs, scanProcesses());
    expect(proof.stop).toMatchObject({ reason: 'in-use' });
    expect(proof.stop?.detail).toContain(`process ${sleeper.pid} got inside after it was judged`);
  });

  it('proves nothing of processes from a look at /proc that saw none (rule 19)', async () => {
    const q = await quarantined();
    const blind = { ...scanProcesses(), visible: false, why: '/proc is not a procfs' };
    expect(takeLastProof(q.subject, q.sinceMs, blind).stop).toEqual({
      reason: 'liveness-unknown',
      detail: 'processes could not be seen at the last look: /proc is not a procfs',
    });
  });

  it.runIf(process.geteuid?.() === 0)(
    'keeps a tree with a file system mounted inside after it was judged',
    async () => {
      const q = await quarantined();
      const at = path.join(q.tree, 'a');
      execFileSync('mount', ['-t', 'tmpfs', 'none', at]);
      try {
        expect(takeLastProof(q.subject, Date.now() + 60_000, null).stop).toEqual({
          reason: 'in-use',
          detail: `a file system was mounted at ${path.join(q.judgedAt, 'a')} after it was judged`,
        });
      } finally {
        execFileSync('umount', [at]);
      }
    },
  );
});

describe('changed since the moment, on the cautious side', () => {
  it('counts a stamp at the moment or after; one with no fraction of a second for its whole second', () => {
    const since = 1_700_000_000_500;
    expect(changedSince(since - 1, since)).toBe(false);
    expect(changedSince(since, since)).toBe(true);
    expect(changedSince(since + 0.001, since)).toBe(true);
    // A file system that keeps whole seconds stamped a change made anywhere in 1_700_000_000.
    expect(changedSince(1_700_000_000_000, since)).toBe(true);
    expect(changedSince(1_699_999_999_000, since)).toBe(false);
    expect(CLOCK_MARGIN_MS).toBeGreaterThanOrEqual(10);
  });
});
