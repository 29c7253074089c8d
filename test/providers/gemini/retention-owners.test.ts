import { chmodSync, chownSync, lstatSync, lutimesSync, mkdirSync, readdirSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOnlyRemoved, expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import { geminiScene } from './fixtures.js';
import { projectTmp, runRetention, session } from './sessions.js';

const isRoot = process.geteuid?.() === 0;

/** Rule 20 with real users: a pass run as root over ana's home deletes as ana, and only what is all hers. */
describe.runIf(isRoot)("gemini: whose a session is (rule 20), for Gemini CLI's own retention", () => {
  const [ana, bob] = addUsers(2) as [RealUser, RealUser];

  it("deletes ana's expired session as ana; one whose chat file or part of it is bob's stays whole", async () => {
    const s = geminiScene();
    chmodSync(s.root, 0o755);
    const root = path.join(s.projects, 'app');
    mkdirSync(root, { recursive: true });
    const tmp = projectTmp(s, 'app', root);
    const hers = session(tmp, root, { at: daysAgo(40), companions: true });
    const hisChat = session(tmp, root, { at: daysAgo(41) });
    const mixed = session(tmp, root, { at: daysAgo(42), companions: true });
    giveTo(s.home, ana);
    giveTo(s.projects, ana);
    chownSync(hisChat.chat, bob.uid, bob.gid);
    const planted = put(path.join(mixed.companions[1] as string, 'planted.txt'), 'x\n');
    chownSync(planted, bob.uid, bob.gid);
    for (const at of [planted, mixed.companions[1] as string]) utimesSync(at, daysAgo(42), daysAgo(42));
    settleFolders(s.gemini);
    const before = inventory(s.root);

    const { report, exitCode } = await runRetention(s);

    expect(exitCode).toBe(0);
    for (const at of [hers.chat, ...hers.companions])
      expect(itemAt(report, at)).toMatchObject({ verdict: 'deleted', reason: 'gemini-session-expired' });
    expect(itemAt(report, hisChat.chat)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(itemAt(report, hisChat.chat).detail).toContain(`belongs to uid ${bob.uid}`);
    expect(itemAt(report, mixed.chat)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expectOnlyRemoved(s.root, before, inventory(s.root), [hers.chat, ...hers.companions]);
    expect(lstatSync(planted).uid).toBe(bob.uid);
  });

  it("a settings file that is a link to bob's file is never read as ana's: her sessions stay, source-unreadable", async () => {
    const s = geminiScene();
    chmodSync(s.root, 0o755);
    const root = path.join(s.projects, 'app');
    mkdirSync(root, { recursive: true });
    const tmp = projectTmp(s, 'app', root);
    const old = session(tmp, root, { at: daysAgo(40) });
    const his = put(
      path.join(s.root, 'bob', 'settings.json'),
      JSON.stringify({ general: { sessionRetention: { maxAge: '1d' } } }),
    );
    giveTo(path.dirname(his), bob);
    symlinkSync(his, path.join(s.gemini, 'settings.json'));
    giveTo(s.home, ana);
    giveTo(s.projects, ana);
    settleFolders(s.gemini);
    lutimesSync(path.join(s.gemini, 'settings.json'), daysAgo(3), daysAgo(3));
    const before = inventory(s.root);

    const { report } = await runRetention(s);

    expect(itemAt(report, old.chat)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(report, old.chat).detail).toContain(`belongs to uid ${bob.uid}`);
    expectUnchanged(before, inventory(s.root));
  });
});

function settleFolders(dir: string): void {
  const when = daysAgo(3);
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory()) settleFolders(path.join(dir, entry.name));
  if (lstatSync(dir).mtimeMs > Date.now() - 3_600_000) utimesSync(dir, when, when);
}
