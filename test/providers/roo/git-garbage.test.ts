import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { expectOnlyRemoved, expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { git, makeShadowRepo, makeWorkspace } from '../../engines/vscode-storage/fixtures.js';
import { KILO, historyItem, rooScene, runRoo, settle, taskFiles, taskRepo, writeGlobalHistory } from './fixtures.js';

const ID = (n: number) => `0199a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** Real garbage in a task's repository: a `git add` of its workspace killed mid-pack. */
function garbageIn(repoFolder: string, workspace: string) {
  return killGitMidPack({ gitDir: path.join(repoFolder, '.git'), workTree: workspace });
}

describe("git garbage in Roo Code's and the old Kilo Code extension's checkpoint repositories", () => {
  for (const extension of ['roo', 'kilo'] as const) {
    it(`${extension}: deletes a killed git's tmp_pack in a live task's repository, and leaves every checkpoint`, async () => {
      const s = extension === 'roo' ? rooScene() : rooScene(KILO);
      const ws = makeWorkspace(path.join(s.projects, 'shop'));
      const live = historyItem(ID(1), ws);
      taskFiles(s.gs, live);
      writeGlobalHistory(s, [live]);
      const repo = taskRepo(s, ID(1), ws);
      const killed = await garbageIn(repo, ws);
      settle(s);
      const trees = git(['--git-dir', path.join(repo, '.git'), 'log', '--all', '--format=%T'])
        .trim()
        .split('\n');
      const before = inventory(s.root);

      const { report, exitCode } = await runRoo(s);

      expect(exitCode).toBe(0);
      expect(itemAt(report, killed.tmpPack)).toMatchObject({
        provider: 'roo',
        kind: 'git-garbage',
        verdict: 'deleted',
        reason: 'git-temporary',
        bytes: killed.bytes,
      });
      const repoItem = itemAt(report, repo);
      expect(repoItem).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
      expect(repoItem.detail).toContain("one of git's temporary files in it");
      expectOnlyRemoved(s.root, before, inventory(s.root), [killed.tmpPack]);
      for (const tree of trees) git(['--git-dir', path.join(repo, '.git'), 'cat-file', '-e', tree]);
      expect(existsSync(killed.indexLock as string)).toBe(true);
    }, 120_000);
  }

  it("a dead task's repository a killed git left its index.lock in is refused and only its garbage goes; a repository that is not the extension's keeps its garbage", async () => {
    const s = rooScene();
    const ws = makeWorkspace(path.join(s.projects, 'shop'));
    writeGlobalHistory(s, []);
    const dead = taskRepo(s, ID(2), ws);
    const deadGarbage = await garbageIn(dead, ws);
    const stranger = makeShadowRepo(path.join(s.gs, 'tasks', ID(3), 'checkpoints'), {
      worktree: ws,
      userName: 'Someone Else',
      userEmail: 'someone@example.test',
      emptyTemplate: true,
      checkpoints: [],
    });
    const strangerGarbage = await garbageIn(stranger, ws);
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRoo(s);

    // A killed add left its index.lock: the dead repository is refused, and only its garbage goes.
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'refused', reason: 'git-lock-file' });
    expect(itemAt(report, deadGarbage.tmpPack)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expect(itemAt(report, stranger)).toMatchObject({ verdict: 'refused', reason: 'signature-mismatch' });
    expect(report.items.some((item) => item.path === strangerGarbage.tmpPack)).toBe(false);
    expectOnlyRemoved(s.root, before, inventory(s.root), [deadGarbage.tmpPack]);

    const settled = inventory(s.root);
    await runRoo(s);
    expectUnchanged(settled, inventory(s.root));
  }, 120_000);
});
