import { readFileSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { DEAD_ITEMS, type DeadItem } from './scenes.js';

/**
 * Rule 21 for every provider and kind: a file written into an item after the plan judged it, and
 * dated back (as `tar x`, `cp -p` or `rsync -t` date what they write), is seen by the last proof
 * alone: its ctime is after the moment the pass began collecting evidence. The item is put back
 * (or, for a worktree git would remove, left where it is) and refused; nothing in it is lost.
 */

const CONTENT = 'the only copy of something written after the plan\n';

/** Whether an inventory key (relative to the world) is the item or inside it. */
const within = (s: DeadItem) => {
  const item = path.relative(s.world, s.item);
  return (key: string) => key === item || key.startsWith(`${item}${path.sep}`);
};

async function passWritingLate(s: DeadItem, setBack: boolean) {
  let before = inventory(s.world);
  const result = await pass({
    dir: s.run,
    config: s.config,
    only: s.only,
    env: s.env,
    onPlanned: (items) => {
      expect(items.find((item) => item.path === s.item)).toMatchObject({ verdict: 'would-delete', reason: s.reason });
      put(s.lateFile, CONTENT);
      if (setBack) {
        const then = daysAgo(3);
        utimesSync(s.lateFile, then, then);
        utimesSync(path.dirname(s.lateFile), then, then);
      }
      before = inventory(s.world);
    },
  });
  return { ...result, before };
}

describe('the last proof sees a write made after the plan, for every provider and kind', () => {
  for (const [label, build] of DEAD_ITEMS) {
    it(`${label}: a late file dated back is seen by its ctime; the item is refused and loses nothing`, async () => {
      const s = build();
      const { report, exitCode, before } = await passWritingLate(s, true);

      const item = itemAt(report, s.item);
      expect(item, item.detail).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
      expect(item.detail).toMatch(/\(ctime\), after the pass began collecting its evidence at/);
      expect(exitCode).toBe(0);
      expect(readFileSync(s.lateFile, 'utf8')).toBe(CONTENT);
      // Everything the item held after the write is where it was: put back whole, or never moved.
      const inside = within(s);
      const diff = diffInventories(before, inventory(s.world));
      expect(diff.removed.filter(inside)).toEqual([]);
      expect(diff.added.filter(inside)).toEqual([]);
    });
  }

  it('a late file with a fresh mtime is seen too, and the next pass, once nothing changes, deletes the item', async () => {
    const [, build] = DEAD_ITEMS[0] as (typeof DEAD_ITEMS)[number];
    const s = build();
    const { report } = await passWritingLate(s, false);
    expect(itemAt(report, s.item)).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    const then = daysAgo(3);
    utimesSync(s.lateFile, then, then);
    utimesSync(path.dirname(s.lateFile), then, then);
    const next = await pass({ dir: s.run, config: s.config, only: s.only, env: s.env });
    expect(itemAt(next.report, s.item)).toMatchObject({ verdict: 'deleted', reason: s.reason });
  });
});
