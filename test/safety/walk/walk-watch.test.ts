import { lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdentityIndex } from '../../../src/safety/processes/identities.js';
import { createTreeCache } from '../../../src/safety/walk/tree-cache.js';
import { pidsHoldingAny, WalkWatch } from '../../../src/safety/walk/walk-watch.js';
import { put } from '../../helpers/fs-fixtures.js';
import { tempDir } from '../../helpers/temp.js';

/** Every entry below `root` and `root` itself, by lstat. */
function identitiesOf(root: string): Array<{ dev: number; ino: number }> {
  const out = [lstatSync(root)];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const name of readdirSync(dir)) {
      const stats = lstatSync(path.join(dir, name));
      out.push(stats);
      if (stats.isDirectory()) pending.push(path.join(dir, name));
    }
  }
  return out.map(({ dev, ino }) => ({ dev, ino }));
}

describe('the walk watch', () => {
  it('finds the holders of any entry during the one walk, and keeps every inode only when asked', () => {
    const root = tempDir();
    for (let i = 0; i < 150; i += 1) put(path.join(root, `d${i % 7}`, `f${i}.txt`), String(i));
    mkdirSync(path.join(root, 'empty'));
    const deep = statSync(path.join(root, 'd3', 'f10.txt'));
    const held = new IdentityIndex();
    held.add(deep.dev, deep.ino, 4242);
    held.add(deep.dev + 1, deep.ino, 5151); // the same inode number on another device: not inside
    held.add(statSync(root).dev, statSync(root).ino, 6161); // the root itself counts

    const keeping = new WalkWatch(held, true);
    const measure = createTreeCache({ visitorFor: (r) => keeping.visitorFor(r) });
    const facts = measure(root);
    expect(keeping.pidsInside(root)).toEqual([4242, 6161]);
    const kept = keeping.inodesOf(root);
    const expected = identitiesOf(root);
    expect(facts.entries + 1).toBe(expected.length);
    expect(kept?.dev).toBe(statSync(root).dev);
    // More than the first buffer holds: every entry once, none lost when it grew.
    expect([...(kept?.inodes ?? [])].sort()).toEqual(expected.map(({ ino }) => ino).sort());
    expect(pidsHoldingAny(held, kept as NonNullable<typeof kept>)).toEqual([4242, 6161]);

    const reportOnly = new WalkWatch(held, false);
    createTreeCache({ visitorFor: (r) => reportOnly.visitorFor(r) })(root);
    expect(reportOnly.pidsInside(root)).toEqual([4242, 6161]);
    expect(reportOnly.inodesOf(root)).toBeNull();
    keeping.clear();
    expect(keeping.inodesOf(root)).toBeNull();
  });
});
