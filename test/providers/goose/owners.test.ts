import { chownSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOnlyRemoved } from '../../engines/vscode-storage/expect.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import { dateFolder, gooseScene, runGoose } from './fixtures.js';

const isRoot = process.geteuid?.() === 0;

/** Rule 20 with real users: a pass run as root over ana's home deletes as ana, and only what is all hers. */
describe.runIf(isRoot)('goose: whose the logs are (rule 20)', () => {
  const [ana, bob] = addUsers(2) as [RealUser, RealUser];

  it("deletes ana's expired date folder as ana; one with a file of bob's, or bob's own, is refused foreign-owner", async () => {
    const s = gooseScene();
    const hers = dateFolder(s, 'cli', daysAgo(20));
    const mixed = dateFolder(s, 'cli', daysAgo(21));
    const his = dateFolder(s, 'server', daysAgo(22), ['-goosed']);
    giveTo(s.home, ana);
    chownSync(mixed.files[0] as string, bob.uid, bob.gid);
    giveTo(his.folder, bob);
    const planted = put(path.join(mixed.folder, 'planted.log'), 'x\n');
    chownSync(planted, bob.uid, bob.gid);
    backdate(s.home, daysAgo(21));
    const before = inventory(s.root);

    const { report, exitCode } = await runGoose(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, hers.folder)).toMatchObject({ verdict: 'deleted', reason: 'goose-log-expired' });
    expect(itemAt(report, mixed.folder)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(itemAt(report, his.folder)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(itemAt(report, his.folder).detail).toContain(`belongs to uid ${bob.uid}`);
    expectOnlyRemoved(s.root, before, inventory(s.root), [hers.folder]);
    // Nothing of bob's was touched, and ana's folder that holds it is still hers.
    expect(lstatSync(mixed.folder).uid).toBe(ana.uid);
  });
});
