import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { expectOnlyRemoved, expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { git, makeShadowRepo, makeWorkspace } from '../../engines/vscode-storage/fixtures.js';
import {
  clineScene,
  historyItem,
  legacyTaskRepo,
  runCline,
  settle,
  taskFolder,
  workspaceRepo,
  writeTaskHistory,
} from './fixtures.js';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';

/** Real garbage in a shadow repository: a `git add` of its workspace killed mid-pack, as Cline runs it (from the repository's folder). */
async function garbageIn(repoFolder: string, workspace: string) {
  return killGitMidPack({ gitDir: path.join(repoFolder, '.git'), workTree: workspace });
}

/** Every commit's tree of a repository, to prove with `cat-file -e` that each is still there. */
function treesOf(repoFolder: string): string[] {
  return git(['--git-dir', path.join(repoFolder, '.git'), 'log', '--all', '--format=%T'])
    .trim()
    .split('\n');
}

describe("git garbage in Cline's checkpoint repositories", () => {
  it("deletes a killed git's tmp_pack in a live repository and in a per-task one of Cline 3.0 to 3.4; every checkpoint stays", async () => {
    const s = clineScene();
    const shop = makeWorkspace(path.join(s.projects, 'shop'));
    const live = workspaceRepo(s.gs, shop, ['1790000000001']);
    const old = legacyTaskRepo(s.gs, '1790000000009', shop);
    writeTaskHistory(s.gs, [historyItem('1790000000001', shop), historyItem('1790000000009', shop)]);
    taskFolder(s.gs, '1790000000001');
    taskFolder(s.gs, '1790000000009');
    const liveGarbage = await garbageIn(live, shop);
    const oldGarbage = await garbageIn(old, shop);
    settle(s);
    const trees = [live, old].flatMap((folder) => treesOf(folder).map((tree) => [folder, tree] as const));
    const before = inventory(s.root);

    const { report, exitCode } = await runCline(s);

    expect(exitCode).toBe(0);
    for (const killed of [liveGarbage, oldGarbage])
      expect(itemAt(report, killed.tmpPack)).toMatchObject({
        provider: 'cline',
        kind: 'git-garbage',
        verdict: 'deleted',
        reason: 'git-temporary',
        bytes: killed.bytes,
      });
    const liveItem = itemAt(report, live);
    expect(liveItem).toMatchObject({ kind: 'checkpoint-repo', verdict: 'kept', reason: 'task-in-history' });
    expect(liveItem.detail).toContain("one of git's temporary files in it");
    expect(itemAt(report, old)).toMatchObject({ verdict: 'unfinished', reason: 'alive-legacy-format' });
    expectOnlyRemoved(s.root, before, inventory(s.root), [liveGarbage.tmpPack, oldGarbage.tmpPack]);
    expect(trees.length).toBeGreaterThan(2);
    for (const [folder, tree] of trees) git(['--git-dir', path.join(folder, '.git'), 'cat-file', '-e', tree]);

    const settled = inventory(s.root);
    const again = await runCline(s);
    expect(again.report.items.filter((item) => item.kind === 'git-garbage')).toEqual([]);
    expectUnchanged(settled, inventory(s.root));
  }, 120_000);

  it('a dead repository goes whole, its garbage with it; one a killed git left its index.lock in is refused, and only its garbage goes', async () => {
    const s = clineScene();
    const cart = makeWorkspace(path.join(s.projects, 'cart'));
    const shop = makeWorkspace(path.join(s.projects, 'shop'));
    const dead = workspaceRepo(s.gs, cart, ['1790000000003']);
    const locked = workspaceRepo(s.gs, shop, ['1790000000004']);
    writeTaskHistory(s.gs, []);
    const deadGarbage = await garbageIn(dead, cart);
    rmSync(deadGarbage.indexLock as string);
    const lockedGarbage = await garbageIn(locked, shop);
    expect(lockedGarbage.indexLock).not.toBeNull();
    settle(s);
    const before = inventory(s.root);

    const { report } = await runCline(s);

    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(report.items.some((item) => item.path === deadGarbage.tmpPack)).toBe(false);
    expect(itemAt(report, locked)).toMatchObject({ verdict: 'refused', reason: 'git-lock-file' });
    expect(itemAt(report, lockedGarbage.tmpPack)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expectOnlyRemoved(s.root, before, inventory(s.root), [dead, lockedGarbage.tmpPack]);
    expect(existsSync(lockedGarbage.indexLock as string)).toBe(true);
  }, 120_000);

  it("leaves the garbage of a repository that is not Cline's (another identity, a folder not named by its worktree's hash)", async () => {
    const s = clineScene();
    const shop = makeWorkspace(path.join(s.projects, 'shop'));
    const stranger = makeShadowRepo(path.join(s.gs, 'checkpoints', hashWorkingDir(shop)), {
      worktree: shop,
      userName: 'Someone Else',
      userEmail: 'someone@example.test',
      emptyTemplate: false,
      checkpoints: [],
    });
    const misnamed = workspaceRepo(s.gs, path.join(s.projects, 'cart'), ['1790000000005'], { name: '12345' });
    writeTaskHistory(s.gs, [historyItem('1790000000005', path.join(s.projects, 'cart'))]);
    const strangerGarbage = await garbageIn(stranger, shop);
    const misnamedGarbage = await garbageIn(misnamed, makeWorkspace(path.join(s.projects, 'cart')));
    settle(s);
    const before = inventory(s.root);

    const { report } = await runCline(s);

    expect(itemAt(report, stranger)).toMatchObject({ verdict: 'refused', reason: 'signature-mismatch' });
    expect(itemAt(report, misnamed)).toMatchObject({ verdict: 'refused', reason: 'worktree-hash-mismatch' });
    for (const killed of [strangerGarbage, misnamedGarbage])
      expect(report.items.some((item) => item.path === killed.tmpPack)).toBe(false);
    expectUnchanged(before, inventory(s.root));
  }, 120_000);

  it('refuses the garbage with the history when the history cannot be read (rule 1)', async () => {
    const s = clineScene();
    const shop = makeWorkspace(path.join(s.projects, 'shop'));
    const live = workspaceRepo(s.gs, shop, ['1790000000001']);
    writeTaskHistory(s.gs, [historyItem('1790000000001', shop)]);
    const killed = await garbageIn(live, shop);
    settle(s);
    // A history file that does not parse.
    rmSync(path.join(s.gs, 'state', 'taskHistory.json'));
    writeFileSync(path.join(s.gs, 'state', 'taskHistory.json'), '[{"id": ');
    settle(s);
    const before = inventory(s.root);

    const { report } = await runCline(s);

    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expectUnchanged(before, inventory(s.root));
  }, 120_000);
});
