import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { collect } from '../../helpers/cli.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { cliReachableByAnyone } from '../../helpers/reachable-cli.js';
import { UNREAD_WARNINGS, warningGit } from '../../helpers/unread-warnings.js';
import { rooScene, runRoo, settle as settleRoo, taskRepo } from '../roo/fixtures.js';
import { hashWorkingDir } from '../../../src/providers/cline/checkpoints.js';
import { sh } from '../../helpers/git-fixtures.js';
import { clineScene, runCline, settle, workspaceRepo } from './fixtures.js';

/**
 * Rule 22 for the checkpoint repositories of Cline and Roo Code: a `git log` (or config read)
 * that warns it could not read part of a repository is no answer, so the repository is `refused
 * unreadable-content` and keeps every byte, even where git exited 0 with what it could read.
 */

const USER = 4353;
const FOREIGN = 999;
const isRoot = process.geteuid?.() === 0;

function chownTree(target: string, uid: number): void {
  chownSync(target, uid, uid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) chownTree(path.join(target, name), uid);
}

const unchanged = { removed: [], changed: [], added: [] };

/** A pass of the built CLI as `uid`, over `home`, of one provider. */
async function passAs(uid: number, work: string, home: string, only: string): Promise<Report> {
  const config = path.join(work, 'agent-janitor.json');
  writeFileSync(config, JSON.stringify({ homes: [home], minAge: '0s', reportDir: path.join(work, 'report') }));
  chownTree(work, uid);
  const child = spawn(
    process.execPath,
    [cliReachableByAnyone(), 'run', '--config', config, '--json', '--only', only, '--log-level', 'warn'],
    {
      uid,
      gid: uid,
      env: { ...process.env, HOME: '/nonexistent-home', XDG_CONFIG_HOME: '', CLINE_DIR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const run = await collect(child, 60_000);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Report;
}

describe.runIf(isRoot)("cline and roo: git, run as the repository's owner, meets what it may not read", () => {
  it('cline: a pack folder of another uid: git log answers what it could read and warns; the repository stays', async () => {
    const s = clineScene();
    const repo = workspaceRepo(s.gs, path.join(s.projects, 'shop'), ['1790000000900']);
    settle(s);
    chownTree(s.root, USER);
    chmodSync(s.root, 0o755);
    // `error: unable to open object pack directory: …: Permission denied`, and exit 0.
    const pack = path.join(repo, '.git', 'objects', 'pack');
    chownSync(pack, FOREIGN, FOREIGN);
    chmodSync(pack, 0o700);
    const before = inventory(repo);

    const report = await passAs(USER, s.work, s.home, 'cline');

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
    expect(itemAt(report, repo).detail).toContain('unable to open object pack directory');
    expect(diffInventories(before, inventory(repo))).toEqual(unchanged);
  });

  it('roo: packed refs of another uid: the log fails for a reason it names, and the repository stays', async () => {
    const s = rooScene();
    const repo = taskRepo(s, '0199a000-0000-7000-8000-000000000901', path.join(s.projects, 'x'));
    sh(repo, 'pack-refs', '--all');
    settleRoo(s);
    chownTree(s.root, USER);
    chmodSync(s.root, 0o755);
    const packed = path.join(repo, '.git', 'packed-refs');
    chownSync(packed, FOREIGN, FOREIGN);
    chmodSync(packed, 0o600);
    const before = inventory(repo);

    const report = await passAs(USER, s.work, s.home, 'roo');

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
    expect(itemAt(report, repo).detail).toContain("couldn't read .git/packed-refs: Permission denied");
    expect(diffInventories(before, inventory(repo))).toEqual(unchanged);
  });
});

describe('cline and roo: a git that exits 0 but says it could not read part of a repository', () => {
  it('cline: refuses each such repository (unreadable-content), whatever the warning, and keeps every byte', async () => {
    const s = clineScene();
    const worktrees = UNREAD_WARNINGS.map((_, k) => path.join(s.projects, `victim-${k}`));
    const repos = worktrees.map((ws, k) => workspaceRepo(s.gs, ws, [`17900000010${String(k).padStart(2, '0')}`]));
    const control = workspaceRepo(s.gs, path.join(s.projects, 'control'), ['1790000001100']);
    settle(s);
    const before = repos.map((repo) => inventory(repo));
    const bin = warningGit(
      s.work,
      new Map(worktrees.map((ws, k) => [`/checkpoints/${hashWorkingDir(ws)}`, UNREAD_WARNINGS[k] as string])),
    );

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => runCline(s));

    for (const [k, repo] of repos.entries()) {
      expect(itemAt(report, repo), UNREAD_WARNINGS[k]).toMatchObject({
        verdict: 'refused',
        reason: 'unreadable-content',
      });
      expect(itemAt(report, repo).detail).toContain(UNREAD_WARNINGS[k]);
      expect(diffInventories(before[k] as Map<string, never>, inventory(repo))).toEqual(unchanged);
    }
    expect(itemAt(report, control)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(control)).toBe(false);
  });

  it('roo: refuses each such repository (unreadable-content), whatever the warning, and keeps every byte', async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'x');
    const ids = UNREAD_WARNINGS.map((_, k) => `0199a000-0000-7000-8000-0000000010${String(k).padStart(2, '0')}`);
    const repos = ids.map((id) => taskRepo(s, id, ws));
    const control = taskRepo(s, '0199a000-0000-7000-8000-000000001100', ws);
    settleRoo(s);
    const before = repos.map((repo) => inventory(repo));
    const bin = warningGit(s.work, new Map(ids.map((id, k) => [`/tasks/${id}/`, UNREAD_WARNINGS[k] as string])));

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => runRoo(s));

    for (const [k, repo] of repos.entries()) {
      expect(itemAt(report, repo), UNREAD_WARNINGS[k]).toMatchObject({
        verdict: 'refused',
        reason: 'unreadable-content',
      });
      expect(diffInventories(before[k] as Map<string, never>, inventory(repo))).toEqual(unchanged);
    }
    expect(itemAt(report, control)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(control)).toBe(false);
  });
});
