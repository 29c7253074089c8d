import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';

const isRoot = process.geteuid?.() === 0;

/**
 * Rule 20 for a root outside every home: `claude-<uid>` is read only when it is the uid's own
 * folder, reached through no link to another user's files. Real users, a pass run as root over
 * the home of one of them.
 */
describe.runIf(isRoot)('claude-code: whose claude-<uid> is (rule 20)', () => {
  const [ana, bob] = addUsers(2) as [RealUser, RealUser];

  /** Ana's home, a /tmp-like folder (root's, sticky, writable by all), and a dead session laid out in `root`. */
  function scene() {
    const dir = tempDir('aj-claude-owners-');
    chmodSync(dir, 0o755);
    const home = path.join(dir, 'home', ana.name);
    mkdirSync(path.join(home, '.claude', 'sessions'), { recursive: true });
    giveTo(home, ana);
    const tmp = path.join(dir, 'tmp');
    mkdirSync(tmp, { mode: 0o1777 });
    chmodSync(tmp, 0o1777);
    const session = (root: string, owner: RealUser) => {
      const folder = path.join(root, '-home-ana-shop', randomUUID());
      put(path.join(folder, 'tasks', 'b1a2b3c4d.output'), 'build log\n');
      giveTo(root, owner);
      backdate(root, daysAgo(3));
      return folder;
    };
    const run = () =>
      pass({
        dir,
        only: ['claude-code'],
        env: { HOME: '/nonexistent' },
        config: { homes: [home], minAge: '1h', providers: { 'claude-code': { tmpDir: tmp } } },
      });
    return { dir, home, tmp, root: path.join(tmp, `claude-${ana.uid}`), session, run };
  }

  it("deletes a dead session in ana's own claude-<uid>, as ana", async () => {
    const s = scene();
    mkdirSync(s.root, { mode: 0o700 });
    const folder = s.session(s.root, ana);

    const { report } = await s.run();

    expect(itemAt(report, path.dirname(folder))).toMatchObject({ verdict: 'deleted', reason: 'session-ended' });
    expect(report.providers).toContainEqual({ provider: 'claude-code', root: s.root, ok: true });
  });

  it("never reads a claude-<ana's uid> that bob made, nor one of root's: the name carries ana's uid", async () => {
    for (const owner of [bob, { name: 'root', uid: 0, gid: 0 }] as RealUser[]) {
      const s = scene();
      mkdirSync(s.root, { mode: 0o700 });
      const folder = s.session(s.root, owner);
      const before = inventory(s.tmp);

      const { report, exitCode } = await s.run();

      expect(exitCode).toBe(1);
      expect(report.items.filter((item) => item.path !== null)).toEqual([]);
      const entry = report.providers.find((each) => each.root === s.root);
      expect(entry?.ok).toBe(false);
      expect(entry?.error).toContain(
        `${s.root} belongs to ${owner.uid === 0 ? 'root' : `uid ${bob.uid} (${bob.name})`}`,
      );
      expect(inventory(s.tmp)).toEqual(before);
      expect(existsSync(folder)).toBe(true);
    }
  });

  it("never follows a claude-<uid> link to bob's folder, whoever made the link", async () => {
    const s = scene();
    const bobs = path.join(s.dir, 'bob-scratch');
    mkdirSync(bobs, { mode: 0o700 });
    const folder = s.session(bobs, bob);
    symlinkSync(bobs, s.root);
    lchownSync(s.root, ana.uid, ana.gid);
    const before = inventory(bobs);

    const { report, exitCode } = await s.run();

    expect(exitCode).toBe(1);
    expect(report.items.filter((item) => item.path !== null)).toEqual([]);
    expect(report.providers.find((each) => each.root === s.root)?.error).toContain(
      `${s.root} is a link to ${bobs}, which belongs to uid ${bob.uid} (${bob.name}), not to uid ${ana.uid} (${ana.name})`,
    );
    expect(inventory(bobs)).toEqual(before);
    expect(existsSync(folder)).toBe(true);
  });

  it("refuses foreign-owner a session folder in ana's root that holds bob's file, and touches nothing in it", async () => {
    const s = scene();
    mkdirSync(s.root, { mode: 0o700 });
    const folder = s.session(s.root, ana);
    const planted = put(path.join(folder, 'tasks', 'b9.output'), 'bob was here\n');
    chownSync(planted, bob.uid, bob.gid);
    backdate(s.root, daysAgo(3));
    const before = inventory(s.root);

    const { report } = await s.run();

    expect(itemAt(report, path.dirname(folder))).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(inventory(s.root)).toEqual(before);
  });
});
