import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Report } from '../../../src/model/types.js';
import { removeTree } from '../../../src/safety/removal/remove.js';
import { CLI, collect } from '../../helpers/cli.js';
import { daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import {
  age,
  appWorktree,
  backup,
  codexWorld,
  codexWorldAt,
  configureMarketplaces,
  marketplaceCopy,
  runCodex,
  stagingClone,
  threadDatabase,
  threadId,
  writerLock,
  type CodexWorld,
} from './fixtures.js';

const isRoot = process.geteuid?.() === 0;

/** Dead by every rule: a staging clone, a backup whose live copy is whole, an archived thread's clean worktree. */
function deadScratch(w: CodexWorld): string[] {
  configureMarketplaces(w, ['acme']);
  marketplaceCopy(path.join(w.marketplaces, 'acme'), 'acme');
  const thread = threadId();
  const worktree = appWorktree(w, 'a1b2', thread);
  threadDatabase(w, [{ id: thread, cwd: worktree, archived: true }]);
  writerLock(w, thread);
  const dead = [stagingClone(w, 'marketplace-linux-Q7xk2P'), backup(w, 'Hq3vLm', 'acme'), worktree];
  age(w, daysAgo(3));
  return dead;
}

/** SQLite's files beside a database a pass opened read-only, and the folder's mtime they change. */
const bySqlite = (key: string) => /state_5\.sqlite-(wal|shm)$/.test(key) || key.endsWith('.codex');

describe.runIf(isRoot)("codex: a link of one user's into another user's Codex home (rule 20)", () => {
  const users: RealUser[] = isRoot ? addUsers(2) : [];

  for (const link of ['.codex', '.codex/.tmp', '.codex/.tmp/marketplaces', '.codex/worktrees']) {
    it(`~/${link} leading into B's files: nothing of B's is judged or deleted, and the report names the link`, async () => {
      const [a, b] = users as [RealUser, RealUser];
      const root = tempDir('aj-codex-owners-');
      chmodSync(root, 0o755);
      const homeA = path.join(root, 'home', 'a');
      const homeB = path.join(root, 'home', 'b');
      const mine = codexWorldAt(root, homeA);
      const theirs = codexWorldAt(root, homeB);
      deadScratch(theirs);
      // A's own Codex home is there, but the linked part of it is B's.
      removeTree(path.join(homeA, link));
      mkdirSync(path.dirname(path.join(homeA, link)), { recursive: true });
      symlinkSync(path.join(homeB, link), path.join(homeA, link));
      giveTo(homeA, a);
      giveTo(path.join(root, 'work', 'a'), a);
      giveTo(homeB, b);
      giveTo(path.join(root, 'work', 'b'), b);
      const before = inventory(path.join(root, 'work', 'b'));
      const beforeHome = inventory(homeB);

      const result = await runCodex(mine, { only: ['codex', 'worktrees'] });

      expect(diffInventories(beforeHome, inventory(homeB))).toEqual({ removed: [], changed: [], added: [] });
      expect(inventory(path.join(root, 'work', 'b'))).toEqual(before);
      expect(result.report.totals.deleted).toBe(0);
      const refused = result.report.providers.filter((entry) => !entry.ok);
      expect(refused.length, JSON.stringify(result.report.providers)).toBeGreaterThan(0);
      for (const entry of refused) {
        expect(entry.error).toContain(`${path.join(homeA, link)} is a link to ${path.join(homeB, link)}`);
        expect(entry.error).toContain(`uid ${b.uid} (${b.name})`);
      }
    });
  }
});

describe('codex: what a pass that cannot see, or does not delete, does', () => {
  it.runIf(isRoot)(
    'a blind pass (a /proc with no processes in it) deletes nothing, not even under the locks',
    async () => {
      const w = codexWorld();
      const dead = deadScratch(w);
      const reportDir = path.join(w.work, 'report');
      const config = path.join(w.work, 'blind.yaml');
      writeFileSync(config, stringify({ homes: [w.home], minAge: '1h', reportDir }));
      const before = inventory(w.root);

      const child = spawn(
        'unshare',
        [
          '--mount',
          'sh',
          '-c',
          'set -e; mount -t tmpfs tmpfs /proc; exec "$@"',
          'sh',
          process.execPath,
          CLI,
          'run',
          '--config',
          config,
          '--only',
          'codex',
          '--json',
          '--log-level',
          'error',
        ],
        { env: { ...process.env, HOME: '/nonexistent-home', CODEX_HOME: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const run = await collect(child, 120_000);

      const report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as Report;
      expect(run.stderr).toBe('');
      expect(report.processCheck).toMatchObject({ visible: false, blindBecause: 'not-procfs' });
      expect(report.totals.deleted).toBe(0);
      for (const folder of dead)
        expect(report.items.find((item) => item.path === folder)?.verdict, folder).toBe('refused');
      const diff = diffInventories(before, inventory(w.root));
      expect({
        ...diff,
        changed: diff.changed.filter((key) => !bySqlite(key)),
        added: diff.added.filter((key) => !bySqlite(key)),
      }).toEqual({
        removed: [],
        changed: [],
        added: [],
      });
    },
  );

  it('report-only makes the plan a deleting pass then carries out, item by item, and changes nothing', async () => {
    const w = codexWorld();
    const dead = deadScratch(w);
    const onlyCopy = backup(w, 'T9cRw2', 'studio');
    const dirtyThread = threadId();
    const dirty = appWorktree(w, 'c3d4', dirtyThread);
    // Its thread was deleted (`codex delete`): judged at once, and it holds work.
    put(path.join(dirty, 'draft.md'), 'unsaved work\n');
    age(w, daysAgo(3));
    const before = inventory(w.root);

    const dry = await runCodex(w, { reportOnly: true });
    const diff = diffInventories(before, inventory(w.root));
    expect(diff.removed).toEqual([]);
    expect(diff.changed.filter((key) => !bySqlite(key))).toEqual([]);
    const real = await runCodex(w);

    const plan = (report: Report) =>
      report.items
        .map((item) => `${item.path} ${item.verdict === 'would-delete' ? 'deleted' : item.verdict} ${item.reason}`)
        .sort();
    expect(plan(real.report)).toEqual(plan(dry.report));
    for (const folder of dead)
      expect(dry.report.items.find((item) => item.path === folder)?.verdict).toBe('would-delete');
    expect(dry.report.items.find((item) => item.path === onlyCopy)?.verdict).toBe('unfinished');
    expect(dry.report.items.find((item) => item.path === dirty)?.reason).toBe('uncommitted-changes');
  });
});
