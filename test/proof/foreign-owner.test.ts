import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  type PathLike,
  readdirSync,
  readFileSync,
  type renameSync,
  rmSync,
  type rmdirSync,
  type unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Provider } from '../../src/provider-api/provider.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { hookFs, restoreFs } from '../helpers/fs-hook.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { scratchPass, scratchProvider } from '../helpers/scratch-provider.js';
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

  it("refuses an item whose top folder is another user's, or root's in a user's folder; deletes one that is the home owner's, or root's in root's folder, as that owner", async () => {
    const owner = ensureUser('aj-proof-owner');
    const stranger = ensureUser('aj-proof-volume');
    const home = { uid: owner, gid: gidOf('aj-proof-owner') };
    // Who each unlink and rmdir of the pass runs as: the real calls, watched.
    const calls: Array<{ call: string; at: string; euid: number }> = [];
    const watch =
      (call: string) =>
      (real: (p: PathLike) => void, p: PathLike): void => {
        calls.push({ call, at: String(p), euid: process.geteuid?.() ?? -1 });
        real(p);
      };
    hookFs<typeof unlinkSync>('unlinkSync', watch('unlink'));
    hookFs<typeof rmdirSync>('rmdirSync', watch('rmdir'));
    for (const [topUid, parentUid, verdict, why] of [
      [stranger, owner, 'refused', `neither to the owner of its home (uid ${owner}) nor to root`],
      [0, owner, 'refused', `would be deleted as uid ${owner}`],
      [owner, owner, 'deleted', ''],
      [0, 0, 'deleted', ''],
      // The owner's tree in root's folder (not sticky): emptied as its owner; root, who alone may
      // remove it from that folder, renames it and removes the emptied top.
      [owner, 0, 'deleted', ''],
    ] as const) {
      calls.length = 0;
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
        continue;
      }
      // The file went as the tree's owner; the emptied top, from its quarantine, as its folder's owner.
      expect(calls, label).toEqual([
        { call: 'unlink', at: 'file.txt', euid: topUid },
        { call: 'rmdir', at: expect.stringMatching(/\/\.item\.cleanup-[0-9a-f-]{36}$/), euid: parentUid },
      ]);
      expect(existsSync(target)).toBe(false);
    }
  });
});

describe.runIf(isRoot)('rule 20: a tree is renamed only by whoever may remove it, as its owner or root', () => {
  it("refuses, before it is renamed, a tree whose folder became another user's after the plan", async () => {
    const owner = ensureUser('aj-proof-owner');
    const stranger = ensureUser('aj-proof-volume');
    const dir = tempDir('aj-proof-top-');
    chmodSync(dir, 0o755);
    const root = path.join(dir, 'root');
    const target = path.join(root, 'item');
    put(path.join(target, 'notes', 'file.txt'), 'x\n');
    chownTree(root, owner, gidOf('aj-proof-owner'));
    backdate(root, daysAgo(3));
    let before = inventory(root);

    const { report, exitCode } = await scratchPass({
      provider: scratchProvider({ root }),
      reportDir: path.join(dir, 'report'),
      onPlanned: () => {
        // Its folder handed to a third user: only that user may now take it out of the folder.
        chownSync(root, stranger, stranger);
        before = inventory(root);
      },
    });

    const item = itemAt(report, target);
    expect(item, item.detail).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(item.detail).toContain(`it belongs to uid ${owner}, but only uid ${stranger} may remove it from its folder`);
    expect(exitCode).toBe(0);
    expect(diffInventories(before, inventory(root))).toEqual({ removed: [], changed: [], added: [] });
  });
});

/** The worktrees of DEAD_ITEMS: git removes them, as their owner. */
const WORKTREES = DEAD_ITEMS.filter(([label]) => label.includes(' worktree ') || label.endsWith(' worktree'));

/**
 * A clean filter in the worktree's repository (its config and `info/attributes`, for every file):
 * a program of the owner's choosing that notes the uid it runs as, then passes the content through.
 * git runs it for each file whose stat data no longer matches the index (handing the tree over
 * changed every ctime), in a status and in `git worktree remove`'s own status alike.
 */
function spyFilter(repo: string): { ran: () => string[] } {
  const dir = tempDir('aj-proof-filter-');
  chmodSync(dir, 0o755);
  const log = path.join(dir, 'uids');
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  sh(repo, 'config', 'filter.spy.clean', `sh -c 'id -u >> ${log}; cat'`);
  put(path.join(repo, '.git', 'info', 'attributes'), '* filter=spy\n');
  return { ran: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe.runIf(isRoot)('rule 20: git removes a worktree as its owner, or not at all', () => {
  const users: Users = isRoot
    ? {
        owner: ensureUser('aj-proof-owner'),
        ownerGid: gidOf('aj-proof-owner'),
        volume: ensureUser('aj-proof-volume'),
      }
    : { owner: -1, ownerGid: -1, volume: -1 };
  /** The world handed to the owner; the folder the worktree sits in made root's (0755, not sticky). */
  const inRootsFolder = (s: DeadItem) => {
    const filter = spyFilter(s.repo as string);
    handOver(s, users, '');
    chownSync(path.dirname(s.item), 0, 0);
    chmodSync(path.dirname(s.item), 0o755);
    s.age();
    return filter;
  };

  for (const [label, build] of WORKTREES) {
    it(`${label}: in a folder of root's its owner cannot remove it from, refused in both modes; its clean filter never runs as root; nothing touched`, async () => {
      const s = build();
      const filter = inRootsFolder(s);
      const before = inventory(s.world);
      const listed = sh(s.repo as string, 'worktree', 'list', '--porcelain');

      for (const reportOnly of [true, false]) {
        const { report, exitCode } = await pass({ dir: s.run, config: s.config, only: s.only, env: s.env, reportOnly });
        const item = itemAt(report, s.item);
        const mode = reportOnly ? 'report-only' : 'delete';
        expect(item, `${mode}: ${item.detail}`).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
        expect(item.detail).toContain(
          `${s.item} sits in ${path.dirname(s.item)} (uid 0, mode 0755), a folder its owner (uid ${users.owner}) cannot remove it from`,
        );
        expect(exitCode, mode).toBe(0);
        const diff = diffInventories(before, inventory(s.world));
        expect(diff.removed.filter(ours(s)), mode).toEqual([]);
        expect(diff.changed.filter(ours(s)), mode).toEqual([]);
        expect(diff.added.filter(ours(s)), mode).toEqual([]);
      }
      expect(sh(s.repo as string, 'worktree', 'list', '--porcelain')).toBe(listed);
      // git compared the files through the filter, and only ever as the owner.
      expect(filter.ran().length).toBeGreaterThan(0);
      expect(new Set(filter.ran())).toEqual(new Set([String(users.owner)]));
    });

    it(`${label}: its folder made root's after the plan, the executor refuses it before git starts; nothing touched`, async () => {
      const s = build();
      const filter = spyFilter(s.repo as string);
      handOver(s, users, '');
      let before = inventory(s.world);
      let listed = '';
      const { report, exitCode } = await pass({
        dir: s.run,
        config: s.config,
        only: s.only,
        env: s.env,
        onPlanned: (items) => {
          expect(items.find((item) => item.path === s.item)).toMatchObject({ verdict: 'would-delete' });
          chownSync(path.dirname(s.item), 0, 0);
          chmodSync(path.dirname(s.item), 0o755);
          before = inventory(s.world);
          listed = sh(s.repo as string, 'worktree', 'list', '--porcelain');
        },
      });

      const item = itemAt(report, s.item);
      expect(item, item.detail).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
      expect(item.detail).toContain(`a folder its owner (uid ${users.owner}) cannot remove it from`);
      expect(exitCode).toBe(0);
      const diff = diffInventories(before, inventory(s.world));
      expect(diff.removed.filter(ours(s))).toEqual([]);
      expect(diff.changed.filter(ours(s))).toEqual([]);
      expect(diff.added.filter(ours(s))).toEqual([]);
      expect(sh(s.repo as string, 'worktree', 'list', '--porcelain')).toBe(listed);
      expect(new Set(filter.ran())).toEqual(new Set([String(users.owner)]));
    });

    it(`${label}: in its owner's folder, git worktree remove runs as its owner and the clean filter never as root`, async () => {
      const s = build();
      const filter = spyFilter(s.repo as string);
      handOver(s, users, '');

      const { report, exitCode } = await pass({ dir: s.run, config: s.config, only: s.only, env: s.env });

      expect(itemAt(report, s.item)).toMatchObject({ verdict: 'deleted', reason: s.reason });
      expect(exitCode).toBe(0);
      expect(existsSync(s.item)).toBe(false);
      expect(existsSync(s.adminDir as string)).toBe(false);
      expect(filter.ran().length).toBeGreaterThan(0);
      expect(new Set(filter.ran())).toEqual(new Set([String(users.owner)]));
    });
  }
});

/** The items of DEAD_ITEMS the executor renames into quarantine: every kind but quarantines and worktrees. */
const RENAMED = DEAD_ITEMS.filter(
  ([label]) => !label.includes('quarantine') && !label.includes(' worktree ') && !label.endsWith(' worktree'),
);

describe.runIf(isRoot)('rule 21: the last proof sees another uid that came in after the plan', () => {
  const users: Users = isRoot
    ? {
        owner: ensureUser('aj-proof-owner'),
        ownerGid: gidOf('aj-proof-owner'),
        volume: ensureUser('aj-proof-volume'),
      }
    : { owner: -1, ownerGid: -1, volume: -1 };

  for (const [label, build] of RENAMED) {
    it(`${label}: another user's file written inside after the plan, or its top handed to another user after the rename: refused, put back whole`, async () => {
      // A file of another uid written inside after the plan stamps the folder it is in: its ctime
      // names the change first.
      const s = build();
      handOver(s, users, '');
      const late = path.join(s.inner, 'late', 'theirs.bin');
      let before = inventory(s.world);
      const written = await pass({
        dir: s.run,
        config: s.config,
        only: s.only,
        env: s.env,
        onPlanned: (items) => {
          expect(items.find((item) => item.path === s.item)).toMatchObject({ verdict: 'would-delete' });
          put(late, 'written by another user after the plan\n');
          chownTree(path.dirname(late), users.volume, users.volume);
          before = inventory(s.world);
        },
      });
      const refused = itemAt(written.report, s.item);
      expect(refused, refused.detail).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
      const diff = diffInventories(before, inventory(s.world));
      expect([...diff.removed, ...diff.changed, ...diff.added].filter(ours(s))).toEqual([]);

      // The top folder, which the last proof knows by its mtime once renamed, handed to another
      // user between the rename and the proof (as a `chown` racing the pass would): only its owner
      // shows the change.
      rmSync(path.dirname(late), { recursive: true });
      s.age();
      before = inventory(s.world);
      const quarantine = `${path.join(path.dirname(s.item), `.${path.basename(s.item)}.cleanup-`)}`;
      const stolen: string[] = [];
      hookFs<typeof renameSync>('renameSync', (real, from, to) => {
        real(from, to);
        if (from === s.item && String(to).startsWith(quarantine)) {
          // The rename ran as the owner; root's chown, racing it, steps out of that identity for a moment.
          const euid = process.geteuid?.() ?? 0;
          process.seteuid?.(0);
          try {
            chownSync(to, users.volume, users.volume);
          } finally {
            process.seteuid?.(euid);
          }
          stolen.push(String(to));
        }
      });
      const handed = await pass({ dir: s.run, config: s.config, only: s.only, env: s.env });
      restoreFs();

      expect(stolen, JSON.stringify(itemAt(handed.report, s.item))).toHaveLength(1);
      const item = itemAt(handed.report, s.item);
      expect(item, item.detail).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
      expect(item.detail).toContain(
        `${s.item} belongs to uid ${users.volume}, not to the item's owner (uid ${users.owner})`,
      );
      expect(item.detail).toContain('put back where it was');
      expect(handed.exitCode).toBe(0);
      expect(lstatSync(s.item).uid).toBe(users.volume);
      const after = diffInventories(before, inventory(s.world));
      expect([...after.removed, ...after.changed, ...after.added].filter(ours(s))).toEqual([]);
    });
  }
});
