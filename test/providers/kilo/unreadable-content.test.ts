import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, lstatSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { collect } from '../../helpers/cli.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { cliReachableByAnyone } from '../../helpers/reachable-cli.js';
import { UNREAD_WARNINGS, warningGit } from '../../helpers/unread-warnings.js';
import {
  addKiloWorktree,
  makeRepo,
  makeSnapshot,
  pinOf,
  projectIdOf,
  refExists,
  removeKiloWorktree,
} from './fixtures.js';
import { FOREIGN_ENV, runKilo, scene } from './scene.js';

/**
 * Rule 22 for Kilo's checkpoint repositories: what git says of the owner repository (its
 * worktrees, the pins of its refs) or of a repository's config is no answer when git warns that
 * it could not read part of it; the repository is `refused unreadable-content` and keeps every byte.
 */

const USER = 4354;
const FOREIGN = 999;
const isRoot = process.geteuid?.() === 0;

function chownTree(target: string, uid: number): void {
  chownSync(target, uid, uid);
  if (!lstatSync(target).isDirectory()) return;
  for (const name of readdirSync(target)) chownTree(path.join(target, name), uid);
}

const unchanged = { removed: [], changed: [], added: [] };

describe.runIf(isRoot)('kilo: git, run as the owner, cannot read the pin of a repository', () => {
  it('refuses the repository (unreadable-content) instead of deleting it with its pin left behind', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'feature-x');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    chownTree(s.root, USER);
    chmodSync(s.root, 0o755);
    // The pin, handed to another uid: `git for-each-ref` says `ignoring broken ref` and exits 0.
    const pin = path.join(s.repo, '.git', pinOf(goneRepo));
    chownSync(pin, FOREIGN, FOREIGN);
    chmodSync(pin, 0o600);
    const before = { repo: inventory(goneRepo), owner: inventory(s.repo) };
    const config = path.join(s.work, 'agent-janitor.json');
    writeFileSync(config, JSON.stringify({ homes: [s.home], minAge: '0s', reportDir: path.join(s.work, 'report') }));
    chownTree(s.work, USER);

    const child = spawn(
      process.execPath,
      [cliReachableByAnyone(), 'run', '--config', config, '--json', '--only', 'kilo', '--log-level', 'warn'],
      { uid: USER, gid: USER, env: { ...process.env, ...FOREIGN_ENV }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const run = await collect(child, 60_000);

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
    expect(itemAt(report, goneRepo).detail).toContain(`ignoring broken ref ${pinOf(goneRepo)}`);
    expect(diffInventories(before.repo, inventory(goneRepo))).toEqual(unchanged);
    expect(diffInventories(before.owner, inventory(s.repo))).toEqual(unchanged);
    expect(existsSync(goneRepo)).toBe(true);
  });
});

describe('kilo: a git that exits 0 but says it could not read part of what it was asked', () => {
  it('refuses the repositories of each such owner, whatever the warning, and keeps every byte', async () => {
    const s = scene();
    const names = UNREAD_WARNINGS.map((_, k) => `victim-${String(k).padStart(2, '0')}`);
    const owners = new Map<string, string>();
    const repos = new Map<string, string>();
    for (const name of [...names, 'control']) {
      // An owner repository of its own (its own root commit, so its own project) per warning.
      const owner = makeRepo(path.join(s.root, 'projects', name), { 'name.txt': `${name}\n` });
      const gone = addKiloWorktree(owner, 'feature');
      repos.set(name, makeSnapshot(s.data, projectIdOf(owner), gone, { seededFrom: owner }));
      removeKiloWorktree(owner, gone);
      owners.set(name, owner);
    }
    const before = new Map(names.map((name) => [name, inventory(repos.get(name) as string)]));
    const bin = warningGit(
      s.work,
      new Map(names.map((name, k) => [`/projects/${name}`, UNREAD_WARNINGS[k] as string])),
    );

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => runKilo(s));

    for (const [k, name] of names.entries()) {
      const repo = repos.get(name) as string;
      expect(itemAt(report, repo), UNREAD_WARNINGS[k]).toMatchObject({
        verdict: 'refused',
        reason: 'unreadable-content',
      });
      expect(itemAt(report, repo).detail).toContain(UNREAD_WARNINGS[k]);
      expect(diffInventories(before.get(name) as Map<string, never>, inventory(repo))).toEqual(unchanged);
      expect(refExists(owners.get(name) as string, pinOf(repo))).toBe(true);
    }
    const control = repos.get('control') as string;
    expect(itemAt(report, control)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(existsSync(control)).toBe(false);
  });

  it('refuses a repository whose config git must read and cannot read in full', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'feature');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    // A line the plain reader leaves to git.
    appendFileSync(path.join(repo, 'config'), '[include]\n\tpath = extra\n');
    const before = inventory(repo);
    const bin = warningGit(s.work, new Map([[`${repo}/config`, UNREAD_WARNINGS[3] as string]]));

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => runKilo(s));

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'unreadable-content' });
    expect(diffInventories(before, inventory(repo))).toEqual(unchanged);
  });
});
