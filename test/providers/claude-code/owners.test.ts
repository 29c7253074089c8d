import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
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

  it("never follows the /tmp/claude-<ana's uid> bob linked to ana's transcripts: refused foreign-owner, her transcripts byte for byte the same (rule 28)", async (ctx) => {
    // With protected_symlinks=1 the kernel would refuse root the link itself, hiding whether the pass checks it.
    const protectedSymlinks = readFileSync('/proc/sys/fs/protected_symlinks', 'utf8').trim();
    if (protectedSymlinks !== '0')
      ctx.skip(`fs.protected_symlinks is ${protectedSymlinks} here: the kernel, not the pass, would refuse the link`);
    expect(protectedSymlinks).toBe('0');
    const dir = tempDir('aj-claude-links-');
    chmodSync(dir, 0o755);
    const home = path.join(dir, 'home', ana.name);
    const projects = path.join(home, '.claude', 'projects');
    const sid = randomUUID();
    // A session's transcript and its subagents' (`<slug>/<sid>/subagents/`): the layout of task output, by accident.
    put(path.join(projects, '-home-ana-shop', `${sid}.jsonl`), '{"type":"user"}\n');
    put(
      path.join(projects, '-home-ana-shop', sid, 'subagents', 'agent-a0123456789abcdef.jsonl'),
      '{"type":"assistant"}\n',
    );
    mkdirSync(path.join(home, '.claude', 'sessions'));
    giveTo(home, ana);
    backdate(home, daysAgo(3));
    const link = `/tmp/claude-${ana.uid}`;
    rmSync(link, { force: true });
    // Bob makes it himself, in the real /tmp (sticky and writable by all).
    const asBob = ['setpriv', `--reuid=${bob.uid}`, `--regid=${bob.gid}`, '--clear-groups'];
    execFileSync(asBob[0] as string, [...asBob.slice(1), 'ln', '-s', projects, link]);
    try {
      expect(lstatSync(link)).toMatchObject({ uid: bob.uid });
      expect(lstatSync('/tmp').mode & 0o1777).toBe(0o1777);
      const before = inventory(home);

      const { report, exitCode } = await pass({
        dir,
        only: ['claude-code'],
        env: { HOME: '/nonexistent' },
        config: { homes: [home], minAge: '1h' },
      });

      expect(inventory(home)).toEqual(before);
      expect(exitCode).toBe(1);
      const refused = report.items.filter((item) => item.reason === 'foreign-owner');
      expect(refused).toEqual([
        expect.objectContaining({ provider: 'claude-code', kind: 'task-output', path: null, verdict: 'refused' }),
      ]);
      expect(refused[0]?.detail).toContain(
        `${link} is not read as its uid's task output, and nothing under it is touched: ${link} is a link made by uid ${bob.uid} (${bob.name}), not by uid ${ana.uid} (${ana.name})`,
      );
      expect(report.items.filter((item) => item.path !== null)).toEqual([]);
      expect(report.providers).toContainEqual(expect.objectContaining({ root: link, ok: false }));
    } finally {
      rmSync(link, { force: true });
    }
  });
});
