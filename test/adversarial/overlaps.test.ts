import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { reconcile } from '../../src/reconcile/reconcile.js';
import type { Provider } from '../../src/provider-api/provider.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { backdate, daysAgo } from '../helpers/fs-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { tempDir } from '../helpers/temp.js';
import { ownHomeEnv } from '../providers/owl/env.js';
import { addJob, addProject, addRun, createOwlDb } from '../providers/owl/owl-db.js';
import { jobWorktree, owlHome, type OwlHome } from '../providers/owl/scenario.js';
import { sh, sqliteCompanion } from '../helpers/git-fixtures.js';

/**
 * Everything in the world but the SQLite companions a read-only reader may leave (-wal, -shm), and
 * the write they make to the folder of owl.db.
 */
function contents(world: string) {
  return new Map(
    [...inventory(world)]
      .filter(([key]) => !sqliteCompanion(key))
      .map(([key, entry]) => [
        key,
        key.endsWith('coding-owl') && entry.type === 'dir' ? { ...entry, mtimeMs: 0 } : entry,
      ]),
  );
}

/**
 * One Owl home whose job 1 waits in review past reviewAfter (Owl: unfinished) while its worktree
 * is clean, idle and merged into main (a worktree set over the same folder: delete). The two
 * providers disagree about one folder: contract rule 16.
 */
function disputedWorktree(): { dir: string; owl: OwlHome; worktree: string } {
  const dir = tempDir('aj-overlap-');
  const owl = owlHome(path.join(dir, 'world'));
  const db = createOwlDb(owl.db);
  addProject(db, 'app', owl.repo);
  const worktree = jobWorktree(owl, 1);
  addJob(db, { id: 1, state: 'review', branch: 'owl/job-1', worktree });
  addRun(db, { jobId: 1, started: daysAgo(12), ended: daysAgo(11) });
  db.close();
  sh(owl.repo, 'merge', '-q', '--no-edit', 'owl/job-1');
  backdate(path.join(dir, 'world'), daysAgo(3));
  return { dir, owl, worktree };
}

function configWithSet(dir: string, owl: OwlHome, roots: string[]): string {
  const file = path.join(dir, 'agent-janitor.yaml');
  const config = {
    homes: [owl.home],
    minAge: '1h',
    reportDir: path.join(dir, 'report'),
    providers: { worktrees: { sets: [{ name: 'sweeper', roots, idleAfter: '1d' }] } },
  };
  writeFileSync(file, stringify(config));
  return file;
}

const mounts: string[] = [];
afterEach(() => {
  for (const mount of mounts.splice(0)) execFileSync('umount', ['--lazy', mount]);
});
const isRoot = process.geteuid?.() === 0;

describe('two providers, one folder (contract rule 16)', () => {
  const reaches: Array<[string, (owl: OwlHome, dir: string) => string]> = [
    ['directly', (owl) => path.join(owl.data, 'worktrees')],
    [
      'through a symlink',
      (owl, dir) => {
        const link = path.join(dir, 'links', 'owl-worktrees');
        mkdirSync(path.dirname(link), { recursive: true });
        symlinkSync(path.join(owl.data, 'worktrees'), link);
        return link;
      },
    ],
    ['with ..', (owl) => `${path.join(owl.data, 'worktree-config')}/../worktrees`],
    ['through a folder above it', (owl) => owl.data],
  ];
  for (const [how, rootOf] of reaches) {
    it(`refuses a config whose worktree set reaches Owl's worktrees ${how} (exit 2, nothing read or changed)`, async () => {
      const { dir, owl } = disputedWorktree();
      const file = configWithSet(dir, owl, [rootOf(owl, dir)]);
      const before = contents(path.join(dir, 'world'));

      const checked = await runCli(['config', '--config', file], { env: ownHomeEnv(owl.home) });
      expect(checked.code).toBe(2);
      expect(checked.stderr).toMatch(/worktrees set sweeper .* and owl .*|owl .* and worktrees set sweeper .*/);
      expect(checked.stderr.trim().split('\n')).toHaveLength(1);

      const metrics = path.join(dir, 'metrics', 'agent_janitor.prom');
      const run = await runCli(['run', '--config', file, '--metrics-file', metrics], { env: ownHomeEnv(owl.home) });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(existsSync(path.join(dir, 'report'))).toBe(false);
      expect(existsSync(metrics)).toBe(false);
      const serve = await runCli(['serve', '--config', file, '--listen', '127.0.0.1:0'], { env: ownHomeEnv(owl.home) });
      expect(serve.code).toBe(2);
      expect(contents(path.join(dir, 'world'))).toEqual(before);
    });
  }

  it.runIf(isRoot)('refuses one that reaches them through a bind mount, which a path never shows', async () => {
    const { dir, owl } = disputedWorktree();
    const mount = path.join(dir, 'mnt');
    mkdirSync(mount);
    execFileSync('mount', ['--bind', path.join(owl.data, 'worktrees'), mount]);
    mounts.push(mount);
    const file = configWithSet(dir, owl, [mount]);
    const run = await runCli(['run', '--config', file], { env: ownHomeEnv(owl.home) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('sweeper');
  });

  it('judges a folder two providers claim once, with the most cautious verdict, when the overlap was not seen before the pass', async () => {
    const { dir, owl, worktree } = disputedWorktree();
    const link = path.join(dir, 'links', 'owl-worktrees');
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.join(owl.data, 'worktrees'), link);
    const file = configWithSet(dir, owl, [link]);
    const env = { ...process.env, ...ownHomeEnv(owl.home) };
    const config = await loadConfig({ providers: PROVIDERS, file, env });
    // A provider that declares no areas: the overlap is only found among the candidates.
    const providers: Provider[] = PROVIDERS.map((provider) => ({ name: provider.name, gather: provider.gather }));
    const before = contents(path.join(dir, 'world'));

    for (const reportOnly of [true, false]) {
      const { report } = await reconcile({ config, providers, reportOnly, log: pino({ level: 'silent' }), env });
      const claimed = report.items.filter((item) => item.path === worktree || item.path === path.join(link, '1'));
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ verdict: 'unfinished', reason: 'review-overdue' });
      expect(
        claimed[0]?.claimedBy?.map((claim) => `${claim.provider} ${claim.verdict} ${claim.reason}`).sort(),
      ).toEqual(['owl unfinished review-overdue', 'worktrees would-delete idle-clean']);
      expect(claimed[0]?.detail).toMatch(/most cautious verdict wins: worktrees .* says delete \(idle-clean\)/);
      expect(contents(path.join(dir, 'world'))).toEqual(before);
    }
    expect(
      itemAt(
        (await reconcile({ config, providers, reportOnly: true, log: pino({ level: 'silent' }), env })).report,
        worktree,
      ).verdict,
    ).toBe('unfinished');
  });
});
