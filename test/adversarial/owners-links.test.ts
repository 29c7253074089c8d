import { lchownSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { isInside } from '../../src/safety/inside.js';
import { backdate, daysAgo } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { addUsers, giveTo, type RealUser } from '../helpers/users.js';
import { LAYOUTS } from './support/owners-layouts.js';
import { machine, passOver, plant } from './support/owners-machine.js';

/**
 * Rule 20, the location half: run as root, a link that user A plants in A's home (a provider's
 * root, a storage folder, a set root's fixed part, a folder between the home and the item, the VS
 * Code user-data folder, a profile's globalStorage, a remote server's folder) into user B's files
 * never makes a pass over A's home judge or delete B's items as A's: B keeps every byte, and the
 * report names the link that was not followed. The same link to A's own folder on another disk,
 * or to root's, still works: the items are judged and deleted as before. Real users (useradd),
 * real git, real SQLite, every provider.
 */

const isRoot = process.geteuid?.() === 0;

const users: [RealUser, RealUser] = isRoot ? (addUsers(2) as [RealUser, RealUser]) : ([] as never);

/** The report's roots that are not ok, every one naming the link, where it leads and whose both are. */
function expectRefusal(report: Report, link: string, to: string): void {
  const [a, b] = users;
  const refused = report.providers.filter((root) => !root.ok);
  expect(refused.length, JSON.stringify(report.providers)).toBeGreaterThan(0);
  for (const root of refused) {
    expect(root.error).toContain(`${link} is a link to ${to}`);
    expect(root.error).toContain(`uid ${b.uid} (${b.name})`);
    expect(root.error).toContain(`not to uid ${a.uid} (${a.name})`);
  }
}

describe.runIf(isRoot)("a link of one user's into another user's files (rule 20)", () => {
  for (const layout of LAYOUTS) {
    describe(`${layout.provider}: ${layout.kind} (~/${layout.link})`, () => {
      it("pointing at B's files: none of B's items is judged or deleted, and the report names the link", async () => {
        const [a, b] = users;
        const m = machine();
        const theirs = layout.build(m.homeB, { live: layout.liveForOwner });
        layout.build(m.homeA, { live: false });
        const link = plant(path.join(m.homeA, layout.link), path.join(m.homeB, layout.link), false);
        giveTo(m.homeA, a);
        giveTo(m.homeB, b);
        backdate(m.dir, daysAgo(20));
        const before = inventory(m.homeB);

        const { report, exitCode } = await passOver(m, layout.provider);

        expect(diffInventories(before, inventory(m.homeB))).toEqual({ removed: [], changed: [], added: [] });
        for (const item of theirs) expect(before.has(path.relative(m.homeB, item))).toBe(true);
        expect(report.items.filter((item) => item.path !== null && isInside(link, item.path))).toEqual([]);
        expectRefusal(report, link, path.join(m.homeB, layout.link));
        expect(exitCode).toBe(1);
      });

      if (layout.liveForOwner)
        it("pointing at B's files, in a pass over both homes: B's items are judged by B's own record alone", async () => {
          const [a, b] = users;
          const m = machine();
          const theirs = layout.build(m.homeB, { live: true });
          layout.build(m.homeA, { live: false });
          const link = plant(path.join(m.homeA, layout.link), path.join(m.homeB, layout.link), false);
          giveTo(m.homeA, a);
          giveTo(m.homeB, b);
          backdate(m.dir, daysAgo(20));
          const before = inventory(m.homeB);

          const { report } = await passOver(m, layout.provider, { homes: [m.homeA, m.homeB] });

          expect(diffInventories(before, inventory(m.homeB))).toEqual({ removed: [], changed: [], added: [] });
          for (const item of theirs) expect(itemAt(report, item)).toMatchObject({ verdict: 'kept' });
          expect(report.items.filter((item) => item.path !== null && isInside(link, item.path))).toEqual([]);
          expectRefusal(report, link, path.join(m.homeB, layout.link));
        });

      for (const target of ['its own folder on a bigger disk', "a folder of root's"] as const) {
        it(`pointing at ${target}: the items are judged and deleted as before`, async () => {
          const [a] = users;
          const m = machine();
          const ours = layout.build(m.homeA, { live: false });
          const elsewhere = path.join(target === "a folder of root's" ? m.srv : m.big, layout.link);
          plant(path.join(m.homeA, layout.link), elsewhere, true);
          giveTo(m.homeA, a);
          if (target !== "a folder of root's") giveTo(m.big, a);
          else {
            // The linked folder is root's (a shared disk made for the user); what the user keeps in it is the user's.
            giveTo(m.srv, a);
            for (let folder = elsewhere; folder !== path.dirname(m.srv); folder = path.dirname(folder))
              lchownSync(folder, 0, 0);
          }
          backdate(m.dir, daysAgo(20));

          const { report, exitCode } = await passOver(m, layout.provider);

          expect(report.providers.filter((root) => !root.ok)).toEqual([]);
          for (const item of ours) expect(itemAt(report, item)).toMatchObject({ verdict: 'deleted' });
          expect(exitCode).toBe(0);
        });
      }
    });
  }
});
