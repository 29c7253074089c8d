import { chmodSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/core/pass.js';
import { isInside } from '../../src/safety/inside.js';
import { removeTree } from '../../src/safety/remove.js';
import { backdate, daysAgo } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { tempDir } from '../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../helpers/users.js';
import { LAYOUTS, type Layout } from './support/owners-layouts.js';

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

/** A machine with two users' homes, A's bigger disk, and a folder of root's. */
interface Machine {
  dir: string;
  homeA: string;
  homeB: string;
  /** A's folder on another disk (`/big/a`). */
  big: string;
  /** Root's own folder (`/srv`). */
  srv: string;
  runDir: string;
}

function machine(): Machine {
  const dir = tempDir('aj-owners-');
  chmodSync(dir, 0o755);
  const m = {
    dir,
    homeA: path.join(dir, 'home', 'a'),
    homeB: path.join(dir, 'home', 'b'),
    big: path.join(dir, 'big', 'a'),
    srv: path.join(dir, 'srv'),
    runDir: tempDir('aj-owners-run-'),
  };
  for (const folder of [m.homeA, m.homeB, m.big, m.srv]) mkdirSync(folder, { recursive: true });
  return m;
}

/** Moves what is at `link` in the home to `to` (or drops it, when `to` is elsewhere already) and plants the link. */
function plant(home: string, link: string, to: string, move: boolean): string {
  const at = path.join(home, link);
  if (move) {
    mkdirSync(path.dirname(to), { recursive: true });
    renameSync(at, to);
  } else removeTree(at);
  symlinkSync(to, at);
  return at;
}

/** The environment of a pass whose user owns none of the homes: no variable of its own applies. */
const FOREIGN_ENV: NodeJS.ProcessEnv = {
  HOME: '/nonexistent-home',
  XDG_CONFIG_HOME: '',
  XDG_DATA_HOME: '',
  XDG_STATE_HOME: '',
  CODEX_HOME: '',
  CLINE_DIR: '',
  CLAUDE_CONFIG_DIR: '',
  KILO_DB: '',
  OPENCODE_DB: '',
};

function passOverA(m: Machine, layout: Layout): Promise<PassResult> {
  return pass({
    dir: m.runDir,
    config: { homes: [m.homeA], minAge: '1h' },
    only: [layout.provider],
    env: FOREIGN_ENV,
  });
}

const users: [RealUser, RealUser] = isRoot ? (addUsers(2) as [RealUser, RealUser]) : ([] as never);

describe.runIf(isRoot)("a link of one user's into another user's files (rule 20)", () => {
  for (const layout of LAYOUTS) {
    describe(`${layout.provider}: ${layout.kind} (~/${layout.link})`, () => {
      it("pointing at B's files: none of B's items is judged or deleted, and the report names the link", async () => {
        const [a, b] = users;
        const m = machine();
        const theirs = layout.build(m.homeB, { live: layout.liveForOwner });
        layout.build(m.homeA, { live: false });
        const link = plant(m.homeA, layout.link, path.join(m.homeB, layout.link), false);
        giveTo(m.homeA, a);
        giveTo(m.homeB, b);
        backdate(m.dir, daysAgo(20));
        const before = inventory(m.homeB);

        const { report, exitCode } = await passOverA(m, layout);

        expect(diffInventories(before, inventory(m.homeB))).toEqual({ removed: [], changed: [], added: [] });
        for (const item of theirs) expect(before.has(path.relative(m.homeB, item))).toBe(true);
        expect(report.items.filter((item) => item.path !== null && isInside(link, item.path))).toEqual([]);
        const refused = report.providers.filter((root) => !root.ok);
        expect(refused.length, JSON.stringify(report.providers)).toBeGreaterThan(0);
        for (const root of refused) {
          expect(root.error).toContain(`${link} is a link to ${path.join(m.homeB, layout.link)}`);
          expect(root.error).toContain(`uid ${b.uid} (${b.name})`);
          expect(root.error).toContain(`not to uid ${a.uid} (${a.name})`);
        }
        expect(exitCode).toBe(1);
      });

      for (const target of ['its own folder on a bigger disk', "a folder of root's"] as const) {
        it(`pointing at ${target}: the items are judged and deleted as before`, async () => {
          const [a] = users;
          const m = machine();
          const ours = layout.build(m.homeA, { live: false });
          const elsewhere = path.join(target === "a folder of root's" ? m.srv : m.big, layout.link);
          plant(m.homeA, layout.link, elsewhere, true);
          giveTo(m.homeA, a);
          if (target !== "a folder of root's") giveTo(m.big, a);
          backdate(m.dir, daysAgo(20));

          const { report, exitCode } = await passOverA(m, layout);

          expect(report.providers.filter((root) => !root.ok)).toEqual([]);
          for (const item of ours) expect(itemAt(report, item)).toMatchObject({ verdict: 'deleted' });
          expect(exitCode).toBe(0);
        });
      }
    });
  }
});
