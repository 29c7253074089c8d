import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Provider } from '../../src/core/types.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { scratchPass } from '../helpers/scratch-provider.js';
import { tempDir } from '../helpers/temp.js';
import { ensureUser, gidOf } from '../helpers/users.js';
import { sh } from '../helpers/git-fixtures.js';
import { DEAD_ITEMS, type DeadItem } from './scenes.js';

/**
 * Rule 20, the contents of an item: an item is deleted as one owner, the owner of its top folder.
 * One that holds an entry of another uid, or an entry its owner cannot read or remove, is refused
 * (`foreign-owner`) before anything in it is touched, in a report-only pass and a deleting one
 * alike: run as its owner, the delete (or `git worktree remove`) would stop halfway, and what it
 * left (a worktree without its `.git`, an admin entry gone) no later pass would find. Real users
 * (useradd), real git as the owner, every provider and kind.
 */

const isRoot = process.geteuid?.() === 0;

interface Variant {
  name: string;
  /** Plants what the owner cannot remove inside the item; answers the planted path. */
  plant(item: string, users: Users): string;
}

interface Users {
  owner: number;
  ownerGid: number;
  volume: number;
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'a database volume of another uid, mode 700, that git as the owner cannot read',
    plant(item, users) {
      const volume = path.join(item, 'pgdata');
      put(path.join(volume, 'PG_VERSION'), '16\n');
      put(path.join(volume, 'base', '1', '1259'), Buffer.alloc(8192, 7));
      chownTree(volume, users.volume, users.volume);
      chmodSync(volume, 0o700);
      return volume;
    },
  },
  {
    name: "a file of root's in a folder of the owner's",
    plant(item) {
      const file = put(path.join(item, 'tools', 'root-made.log'), 'root wrote this\n');
      return file;
    },
  },
  {
    name: "a folder of the owner's that the owner cannot empty (mode 0500)",
    plant(item, users) {
      const folder = path.join(item, 'cache');
      put(path.join(folder, 'entry.log'), 'cached\n');
      chownTree(folder, users.owner, users.ownerGid);
      chmodSync(folder, 0o500);
      return folder;
    },
  },
];

function chownTree(root: string, uid: number, gid: number, skip: ReadonlySet<string> = new Set()): void {
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    if (skip.has(current)) continue;
    lchownSync(current, uid, gid);
    if (lstatSync(current).isDirectory())
      for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
}

/** The world, the owner's; what is planted, not; all of it old; the folders above it open to the owner. */
function handOver(s: DeadItem, users: Users, planted: string): void {
  chmodSync(s.world, 0o755);
  chownTree(s.world, users.owner, users.ownerGid, new Set([planted]));
  s.age();
}

/** Whether an inventory key is the item, its admin entry, or inside them (another item of the world may go). */
const ours = (s: DeadItem) => {
  const mine = [s.item, ...(s.adminDir ? [s.adminDir] : [])].map((p) => path.relative(s.world, p));
  return (key: string) => mine.some((folder) => key === folder || key.startsWith(`${folder}${path.sep}`));
};

/** SQLite's own -wal and -shm files beside a database a pass opened. */
const sqliteCompanion = (key: string): boolean => /\.db-(wal|shm)$/.test(key);

describe.runIf(isRoot)(
  'rule 20: an item holding what its owner cannot remove is refused before anything is touched',
  () => {
    const users: Users = isRoot
      ? (() => {
          const owner = ensureUser('aj-proof-owner');
          return { owner, ownerGid: gidOf('aj-proof-owner'), volume: ensureUser('aj-proof-volume') };
        })()
      : { owner: -1, ownerGid: -1, volume: -1 };

    for (const [label, build] of DEAD_ITEMS)
      for (const variant of VARIANTS) {
        it(`${label}, holding ${variant.name}: refused in both modes, nothing touched`, async () => {
          const s = build();
          const planted = variant.plant(s.inner, users);
          handOver(s, users, planted);
          const before = inventory(s.world);
          const listed = s.gitWorktree && s.repo ? sh(s.repo, 'worktree', 'list', '--porcelain') : null;

          for (const reportOnly of [true, false]) {
            const { report, exitCode } = await pass({
              dir: s.run,
              config: s.config,
              only: s.only,
              env: s.env,
              reportOnly,
            });
            const item = itemAt(report, s.item);
            const mode = reportOnly ? 'report-only' : 'delete';
            expect(item.verdict, `${mode}: ${item.detail}`).toBe('refused');
            // git's own warning (it cannot open the volume) refuses a worktree too; either is before anything goes.
            expect(['foreign-owner', 'unreadable-content'], `${mode}: ${item.detail}`).toContain(item.reason);
            if (item.reason === 'foreign-owner') expect(item.detail).toContain(planted);
            expect(exitCode, mode).toBe(0);
            const diff = diffInventories(before, inventory(s.world));
            expect(diff.removed.filter(ours(s)), mode).toEqual([]);
            expect(
              diff.added.filter((key) => ours(s)(key) && !sqliteCompanion(key)),
              mode,
            ).toEqual([]);
          }
          expect(existsSync(planted)).toBe(true);
          // A worktree refused is still git's worktree (no admin entry went without it).
          if (s.gitWorktree && s.repo) expect(sh(s.repo, 'worktree', 'list', '--porcelain')).toBe(listed);
        });
      }
  },
);

describe.runIf(isRoot)('rule 20: the top folder of an item is its home owner’s, or root’s', () => {
  /** A provider whose one candidate says which home owner it was found under. */
  const homeProvider = (root: string, target: string, homeOwner: { uid: number; gid: number }): Provider => ({
    name: 'watchfire',
    async gather() {
      return {
        roots: [{ provider: 'watchfire', root, ok: true }],
        candidates: [
          {
            provider: 'watchfire',
            kind: 'session-home',
            path: target,
            root,
            homeOwner,
            judgement: { decision: 'delete', reason: 'project-deleted', detail: 'dead by the test' },
          },
        ],
      };
    },
  });

  it("refuses an item whose top folder is another user's, or root's in a user's folder; deletes one that is the home owner's, or root's in root's folder", async () => {
    const owner = ensureUser('aj-proof-owner');
    const stranger = ensureUser('aj-proof-volume');
    const home = { uid: owner, gid: gidOf('aj-proof-owner') };
    for (const [topUid, parentUid, verdict, why] of [
      [stranger, owner, 'refused', `neither to the owner of its home (uid ${owner}) nor to root`],
      [0, owner, 'refused', `would be deleted as uid ${owner}`],
      [owner, owner, 'deleted', ''],
      [0, 0, 'deleted', ''],
    ] as const) {
      const dir = tempDir('aj-proof-top-');
      chmodSync(dir, 0o755);
      const root = path.join(dir, 'root');
      mkdirSync(root);
      const target = path.join(root, 'item');
      put(path.join(target, 'file.txt'), 'x\n');
      chownSync(root, parentUid, parentUid === 0 ? 0 : home.gid);
      chownSync(target, topUid, topUid);
      chownSync(path.join(target, 'file.txt'), topUid, topUid);
      backdate(root, daysAgo(3));
      const { report } = await scratchPass({
        provider: homeProvider(root, target, home),
        reportDir: path.join(dir, 'report'),
      });
      const item = itemAt(report, target);
      const label = `top folder of uid ${topUid} in a folder of uid ${parentUid}: ${item.detail}`;
      expect(item.verdict, label).toBe(verdict);
      if (verdict === 'refused') {
        expect(item.reason).toBe('foreign-owner');
        expect(item.detail).toContain(why);
        expect(existsSync(path.join(target, 'file.txt'))).toBe(true);
      }
    }
  });
});
