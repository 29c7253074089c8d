import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOnlyRemoved, expectUnchanged, verdictsOf } from '../../engines/vscode-storage/expect.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { git } from '../kilo/fixtures.js';
import { geminiScene, project, runGemini, scratch, settle, sha256, shadowRepo, writeRegistry } from './fixtures.js';

describe('gemini: git garbage in the shadow repositories, the rest reported per project', () => {
  it("deletes a killed git's tmp_pack in Gemini CLI's and Qwen Code's repositories; every repository, chat and commit stays", async () => {
    const s = geminiScene();
    const app = project(s, 'app');
    const gone = path.join(s.projects, 'old-prototype');
    writeRegistry(s.gemini, { [app]: 'app', [gone]: 'old-prototype' });
    const appRepo = shadowRepo(s.gemini, 'gemini', 'app', app);
    const appChats = scratch(s.gemini, 'app', app);
    const goneRepo = shadowRepo(s.gemini, 'gemini', 'old-prototype', app);
    writeFileSync(path.join(goneRepo, '.project_root'), gone);
    const goneChats = scratch(s.gemini, 'old-prototype', gone);
    const qwenRepo = shadowRepo(s.qwen, 'qwen', sha256(app), app);
    const killed = await killGitMidPack({ gitDir: path.join(appRepo, '.git'), workTree: app });
    const qwenKilled = await killGitMidPack({ gitDir: path.join(qwenRepo, '.git'), workTree: app });
    settle(s);
    const commits = [appRepo, goneRepo, qwenRepo].map((repo) => [
      repo,
      git(['--git-dir', path.join(repo, '.git'), 'rev-parse', 'HEAD^{tree}']).trim(),
    ]);
    const before = inventory(s.root);

    const { report, exitCode } = await runGemini(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([
      { provider: 'gemini', root: s.gemini, ok: true },
      { provider: 'gemini', root: s.qwen, ok: true },
    ]);
    expect(verdictsOf(report)).toEqual(
      [
        'checkpoint-repo kept project-history',
        'checkpoint-repo kept project-history',
        'checkpoint-repo kept project-history',
        'git-garbage deleted git-temporary',
        'git-garbage deleted git-temporary',
        'task-folder kept project-scratch',
        'task-folder kept project-scratch',
      ].sort(),
    );
    expect(itemAt(report, killed.tmpPack)).toMatchObject({ provider: 'gemini', bytes: killed.bytes });
    expect(itemAt(report, qwenKilled.tmpPack)).toMatchObject({ provider: 'gemini', bytes: qwenKilled.bytes });
    const live = itemAt(report, appRepo);
    expect(live.detail).toContain(`Gemini CLI's checkpoint shadow repository of ${app}, which exists`);
    expect(live.detail).toContain('registered in projects.json as app');
    expect(live.detail).toContain(`its scratch ${appChats} holds`);
    expect(live.detail).toContain("one of git's temporary files in it");
    expect(itemAt(report, goneRepo).detail).toContain(`${gone}, which is missing (no proof it was deleted`);
    expect(itemAt(report, goneChats).detail).toMatch(/^Gemini CLI's scratch \(chats, .*conversation data/);
    // Qwen Code names the folder by the sha256 of the project's path and records it nowhere.
    expect(itemAt(report, qwenRepo).detail).toContain(
      `Qwen Code's checkpoint shadow repository of an unrecorded project (the folder ${sha256(app)} is named by the sha256 of the project's path)`,
    );
    expectOnlyRemoved(s.root, before, inventory(s.root), [killed.tmpPack, qwenKilled.tmpPack]);
    for (const [repo, tree] of commits)
      git(['--git-dir', path.join(repo as string, '.git'), 'cat-file', '-e', tree as string]);

    const settled = inventory(s.root);
    await runGemini(s);
    expectUnchanged(settled, inventory(s.root));
  }, 120_000);

  it('a report-only pass plans the same, and changes nothing', async () => {
    const s = geminiScene();
    const app = project(s, 'app');
    writeRegistry(s.gemini, { [app]: 'app' });
    const repo = shadowRepo(s.gemini, 'gemini', 'app', app);
    const killed = await killGitMidPack({ gitDir: path.join(repo, '.git'), workTree: app });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runGemini(s, { reportOnly: true });

    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'would-delete', reason: 'git-temporary' });
    expect(report.totals.wouldReclaimBytes).toBe(killed.bytes);
    expectUnchanged(before, inventory(s.root));
  }, 120_000);

  it("leaves the garbage of a folder that is not the tool's repository (another identity, no .gitconfig)", async () => {
    const s = geminiScene();
    const app = project(s, 'app');
    writeRegistry(s.gemini, { [app]: 'app' });
    const stranger = shadowRepo(s.gemini, 'gemini', 'app', app, {
      identity: { name: 'Someone Else', email: 'someone@example.test' },
    });
    const bare = shadowRepo(s.gemini, 'gemini', 'other', app);
    rmSync(path.join(bare, '.gitconfig'));
    const garbage = [
      await killGitMidPack({ gitDir: path.join(stranger, '.git'), workTree: app }),
      await killGitMidPack({ gitDir: path.join(bare, '.git'), workTree: app }),
    ];
    settle(s);
    const before = inventory(s.root);

    const { report } = await runGemini(s);

    expect(itemAt(report, stranger).detail).toContain('its identity is Someone Else <someone@example.test>');
    expect(itemAt(report, bare).detail).toContain('it has no .gitconfig');
    for (const killed of garbage) expect(report.items.some((item) => item.path === killed.tmpPack)).toBe(false);
    expectUnchanged(before, inventory(s.root));
  }, 120_000);

  it('fails closed on a projects.json it cannot read: the folder is not ok, every item refused, the garbage stays', async () => {
    const s = geminiScene();
    const app = project(s, 'app');
    const repo = shadowRepo(s.gemini, 'gemini', 'app', app);
    writeFileSync(path.join(s.gemini, 'projects.json'), '{"projects": {');
    const killed = await killGitMidPack({ gitDir: path.join(repo, '.git'), workTree: app });
    settle(s);
    const before = inventory(s.root);

    const { report, exitCode } = await runGemini(s);

    expect(exitCode).toBe(1);
    expect(report.providers[0]).toMatchObject({ provider: 'gemini', root: s.gemini, ok: false });
    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expectUnchanged(before, inventory(s.root));
    expect(existsSync(killed.tmpPack)).toBe(true);
  }, 120_000);

  it('a folder of an older Gemini CLI named by the sha256 of its project is matched through projects.json', async () => {
    const s = geminiScene();
    const app = project(s, 'app');
    writeRegistry(s.gemini, { [app]: 'app' });
    const old = shadowRepo(s.gemini, 'gemini', sha256(app), app);
    rmSync(path.join(old, '.project_root'));
    settle(s);

    const { report } = await runGemini(s);

    expect(itemAt(report, old).detail).toContain(
      `shadow repository of ${app}, which exists, in no entry of projects.json`,
    );
  }, 120_000);
});
