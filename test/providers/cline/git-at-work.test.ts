import { existsSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import { expectOnlyRemoved, expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { git, makeWorkspace } from '../../engines/vscode-storage/fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { repackBetweenSteps, type CaughtRepack } from '../../support/real-clis/git-at-work.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { clineScene, historyItem, runCline, settle, taskFolder, workspaceRepo, writeTaskHistory } from './fixtures.js';

/**
 * Rules 25 and 26 for Cline's shadow repositories: a real `git repack` caught between writing its
 * `.tmp-<pid>-pack-*` and renaming them (it holds nothing in the repository then), found by what
 * its `--git-dir` reaches, keeps every one of git's temporary files there, beside the `tmp_pack_*`
 * an earlier `git add` killed mid-pack left: in a container that mounts the home at /workspace,
 * frozen or stopped, and on this machine through a link to the home.
 */

const TASK = '1790000000001';

function expectKeptForGit(report: Report, files: string[], repack: CaughtRepack): void {
  for (const file of files) {
    const item = itemAt(report, file);
    expect(item).toMatchObject({ provider: 'cline', kind: 'git-garbage', verdict: 'refused', reason: 'in-use' });
    // Other git processes of this machine may be named beside it.
    expect(item.detail).toMatch(new RegExp(`^process(es)? (.*, )?${repack.pid} \\(\\S*git --git-dir `));
    expect(item.detail).toContain('git at work in the repository');
  }
}

describe("a git at work in Cline's checkpoint repository, seen by identity", () => {
  for (const hold of ['freeze', 'stop'] as const)
    it(`in a container that mounts the home at /workspace, ${hold === 'freeze' ? 'frozen by the cgroup freezer' : 'stopped by SIGSTOP'}: every garbage file stays until it ${hold === 'freeze' ? 'has finished' : 'is killed'}`, async () => {
      const s = clineScene();
      // Cline in the container checkpoints a project of the home, which it sees at /workspace.
      const project = makeWorkspace(path.join(s.home, 'projects', 'shop'));
      const inContainer = path.join('/workspace', path.relative(s.home, project));
      const made = workspaceRepo(s.gs, project, [TASK]);
      const earlier = (await killGitMidPack({ gitDir: path.join(made, '.git'), workTree: project })).tmpPack;
      git(['config', '--file', path.join(made, '.git', 'config'), 'core.worktree', inContainer]);
      const repo = path.join(path.dirname(made), hashWorkingDir(inContainer));
      renameSync(made, repo);
      const left = path.join(repo, path.relative(made, earlier));
      writeTaskHistory(s.gs, [historyItem(TASK, inContainer)]);
      taskFolder(s.gs, TASK);
      settle(s);
      const repack = await repackBetweenSteps({
        gitDir: path.join(repo, '.git'),
        spelled: path.join('/workspace', path.relative(s.home, repo), '.git'),
        hold,
        container: { home: s.home },
      });
      const before = inventory(s.root);

      const { report } = await runCline(s);

      expect(itemAt(report, repo)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
      expectKeptForGit(report, [left, ...repack.tmpFiles], repack);
      expectUnchanged(before, inventory(s.root));

      if (hold === 'freeze') await repack.resume();
      else await repack.kill();
      const after = inventory(s.root);
      const garbage = hold === 'freeze' ? [left] : [left, ...repack.tmpFiles];
      for (const file of repack.tmpFiles) expect(existsSync(file)).toBe(hold === 'stop');

      const again = await runCline(s);

      for (const file of garbage)
        expect(itemAt(again.report, file)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
      expectOnlyRemoved(s.root, after, inventory(s.root), garbage);
    }, 120_000);

  it('on this machine, started through a link to the home the pass names canonically, stopped by SIGSTOP: every garbage file stays until it is killed', async () => {
    const s = clineScene();
    const shop = makeWorkspace(path.join(s.projects, 'shop'));
    const linked = workspaceRepo(s.gs, shop, [TASK]);
    writeTaskHistory(s.gs, [historyItem(TASK, shop)]);
    taskFolder(s.gs, TASK);
    const killed = await killGitMidPack({ gitDir: path.join(linked, '.git'), workTree: shop });
    settle(s);
    // The home moves behind a link: `<root>/home -> <root>/data/home`; the pass names it canonically.
    const home = path.join(s.root, 'data', 'home');
    mkdirSync(path.dirname(home));
    renameSync(s.home, home);
    symlinkSync(home, s.home);
    const canonical = (p: string) => path.join(home, path.relative(s.home, p));
    const repo = canonical(linked);
    const repack = await repackBetweenSteps({
      gitDir: path.join(repo, '.git'),
      spelled: path.join(linked, '.git'),
      hold: 'stop',
    });
    const before = inventory(s.root);

    const { report } = await runCline({ home, work: s.work });

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expectKeptForGit(report, [canonical(killed.tmpPack), ...repack.tmpFiles], repack);
    expectUnchanged(before, inventory(s.root));

    await repack.kill();
    const after = inventory(s.root);
    const garbage = [canonical(killed.tmpPack), ...repack.tmpFiles];

    const again = await runCline({ home, work: s.work });

    for (const file of garbage)
      expect(itemAt(again.report, file)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expectOnlyRemoved(s.root, after, inventory(s.root), garbage);
  }, 120_000);
});
