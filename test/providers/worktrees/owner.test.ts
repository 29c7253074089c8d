import { fromRootOnlyFolder } from '../../helpers/private-cwd.js';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { expectOnly, listedWorktrees } from '../../helpers/git-fixtures.js';
import { buildSetsWorld } from './scenario.js';

const USER = 4321;

function chownTree(root: string, uid: number): void {
  chownSync(root, uid, uid);
  if (!lstatSync(root).isDirectory()) return;
  for (const name of readdirSync(root)) chownTree(path.join(root, name), uid);
}

describe.runIf(process.getuid?.() === 0)("worktrees: run as root over another user's worktrees", () => {
  it("runs git worktree remove as the owner of the folder, and the result is the owner's", async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const w = buildSetsWorld(path.join(dir, 'world'));
    chownTree(w.world, USER);
    const before = inventory(w.world);
    // A git first on PATH that notes who runs each `worktree` call, then runs the real git.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const log = path.join(dir, 'uids.log');
    writeFileSync(log, '');
    chmodSync(log, 0o666);
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(
      path.join(dir, 'bin', 'git'),
      `#!/bin/sh\ncase " $* " in *" worktree "*) echo "$(id -u) $*" >> ${log};; esac\nexec ${realGit} "$@"\n`,
      { mode: 0o755 },
    );
    const savedPath = process.env.PATH;
    process.env.PATH = `${path.join(dir, 'bin')}:${savedPath}`;
    // Started in a folder the user cannot enter, as a pass run from root's home would be.
    const result = await fromRootOnlyFolder(() => pass({ dir, config: w.config, only: ['worktrees'] })).finally(() => {
      process.env.PATH = savedPath;
    });
    const { report } = result;
    const removals = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes(' remove '));
    expect(removals).toHaveLength(6);
    for (const line of removals) expect(line.split(' ')[0]).toBe(String(USER));

    for (const name of ['merged-clean', 'pushed', 'agent-done'])
      expect(itemAt(report, w.at(name)).verdict, name).toBe('deleted');
    expect(itemAt(report, w.at('dirty')).verdict).toBe('unfinished');
    const rel = (p: string) => path.relative(w.world, p);
    const gone = ['merged-clean', 'merged-later', 'pushed', 'tagged', 'agent-done', 'in-use'];
    expectOnly(before, inventory(w.world), {
      removed: gone.flatMap((name) => [rel(w.at(name)), rel(path.join(w.repo, '.git', 'worktrees', name))]),
      changedDirs: [rel(w.workspace), rel(w.claude), rel(path.join(w.repo, '.git', 'worktrees'))],
    });
    // Whatever git wrote while removing belongs to the user, not to root.
    const owners = new Set([...inventory(w.world).keys()].map((key) => lstatSync(path.join(w.world, key)).uid));
    expect([...owners]).toEqual([USER]);
    expect(listedWorktrees(w.repo)).not.toContain(w.at('merged-clean'));
  });
});
