import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { reconcile } from '../../../src/reconcile/reconcile.js';
import { loadConfig } from '../../../src/config/load.js';
import { PROVIDERS } from '../../../src/providers/registry.js';
import { put } from '../../helpers/fs-fixtures.js';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';
import { ownHomeEnv } from './env.js';
import { addJob, addProject, createOwlDb } from './owl-db.js';
import { jobWorktree, owlHome } from './scenario.js';

/**
 * Rule 24: a worktree admin entry that holds a submodule's git directory (`modules/`) is never
 * pruned as stale. git keeps a linked worktree's submodule repositories in
 * `<common>/worktrees/<id>/modules/<name>`, so when the worktree folder goes, a commit made in the
 * submodule and never pushed lives only there.
 */
describe('owl: a stale admin entry that holds submodule repositories is kept (rule 24)', () => {
  it('reports the entry whose modules/ holds the only copy of a submodule commit as unfinished, and prunes its neighbour', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    const upstream = makeRepo(path.join(world, 'upstream', 'lib'));
    const db = createOwlDb(owl.db);
    addProject(db, 'app', owl.repo);
    const admins: Record<number, string> = {};
    for (const id of [1, 2]) {
      const worktree = jobWorktree(owl, id);
      addJob(db, { id, state: 'done', branch: `owl/job-${id}`, worktree });
      admins[id] = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    }
    db.close();
    // Job 1 cloned a submodule into its worktree and committed in it; nothing pushed that commit.
    sh(owl.worktree(1), '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'vendor/lib');
    const unpushed = commitFile(path.join(owl.worktree(1), 'vendor', 'lib'), 'patch.c', 'a fix\n', 'fix in lib');
    const modules = path.join(admins[1] as string, 'modules', 'vendor', 'lib');
    expect(existsSync(path.join(modules, 'HEAD'))).toBe(true);
    for (const id of [1, 2]) rmSync(owl.worktree(id), { recursive: true, force: true });
    backdate(world, daysAgo(3));
    const before = inventory(admins[1] as string);

    const { report } = await pass({
      dir,
      config: { homes: [owl.home], minAge: '1h' },
      only: ['owl'],
      env: ownHomeEnv(owl.home),
    });

    const kept = itemAt(report, admins[1] as string);
    expect(`${kept.kind} ${kept.verdict} ${kept.reason}`).toBe('worktree-admin unfinished nested-repository');
    expect(kept.detail).toContain(path.join(admins[1] as string, 'modules'));
    expect(diffInventories(before, inventory(admins[1] as string))).toEqual({ removed: [], changed: [], added: [] });
    expect(sh(world, '--git-dir', modules, '--work-tree', world, 'cat-file', '-t', unpushed).trim()).toBe('commit');
    expect(itemAt(report, admins[2] as string)).toMatchObject({ verdict: 'deleted', reason: 'stale-admin-entry' });
    expect(existsSync(admins[2] as string)).toBe(false);
  });

  it('keeps an entry with an empty modules/ folder too: what a submodule left there is not told apart', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    const db = createOwlDb(owl.db);
    addProject(db, 'app', owl.repo);
    const worktree = jobWorktree(owl, 3);
    addJob(db, { id: 3, state: 'cancelled', branch: 'owl/job-3', worktree });
    db.close();
    const admin = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    sh(admin, 'init', '-q', '--bare', path.join(admin, 'modules', 'sm'));
    rmSync(worktree, { recursive: true, force: true });
    backdate(world, daysAgo(3));

    const { report } = await pass({
      dir,
      config: { homes: [owl.home], minAge: '1h' },
      only: ['owl'],
      env: ownHomeEnv(owl.home),
    });

    expect(itemAt(report, admin)).toMatchObject({ verdict: 'unfinished', reason: 'nested-repository' });
    expect(existsSync(path.join(admin, 'modules', 'sm', 'HEAD'))).toBe(true);
  });

  it('stops the prune of an entry that gained a modules/ folder after the plan', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    const db = createOwlDb(owl.db);
    addProject(db, 'app', owl.repo);
    const worktree = jobWorktree(owl, 4);
    addJob(db, { id: 4, state: 'done', branch: 'owl/job-4', worktree });
    db.close();
    const admin = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    rmSync(worktree, { recursive: true, force: true });
    backdate(world, daysAgo(3));
    const file = put(
      path.join(dir, 'agent-janitor.yaml'),
      stringify({ homes: [owl.home], minAge: '1h', reportDir: path.join(dir, 'report') }),
    );
    const env = { ...process.env, ...ownHomeEnv(owl.home) };
    let before = inventory(admin);

    const result = await reconcile({
      config: await loadConfig({ providers: PROVIDERS, file, env }),
      providers: PROVIDERS,
      only: ['owl'],
      reportOnly: false,
      log: pino({ level: 'silent' }),
      env,
      onPlanned: (items) => {
        expect(items.find((item) => item.path === admin)?.verdict).toBe('would-delete');
        sh(admin, 'init', '-q', '--bare', path.join(admin, 'modules', 'late'));
        backdate(world, daysAgo(3));
        before = inventory(admin);
      },
    });

    const item = itemAt(result.report, admin);
    expect(item, item.detail).toMatchObject({ verdict: 'unfinished', reason: 'nested-repository' });
    expect(item.detail).toContain(`${admin} now holds submodule repositories in modules/`);
    // The entry and its modules/, byte for byte, where they were.
    expect(existsSync(path.join(admin, 'modules', 'late', 'HEAD'))).toBe(true);
    expect(diffInventories(before, inventory(admin))).toEqual({ removed: [], changed: [], added: [] });
    expect(result.report.totals.failed).toBe(0);
  });
});
