import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { commitFile, sh } from '../../helpers/git-fixtures.js';
import { ownHomeEnv } from './env.js';
import { addJob, addProject, createOwlDb } from './owl-db.js';
import { jobWorktree, owlHome } from './scenario.js';

describe('owl: a stale admin entry is pruned only when no commit dies with its own refs (rule 15)', () => {
  it('keeps an entry whose refs/worktree ref holds the only copy of a commit, and prunes one whose refs a branch holds', async () => {
    const dir = tempDir();
    const world = path.join(dir, 'world');
    const owl = owlHome(world);
    const db = createOwlDb(owl.db);
    addProject(db, 'app', owl.repo);
    const admins: Record<string, string> = {};
    for (const id of [1, 2, 3]) {
      const worktree = jobWorktree(owl, id);
      addJob(db, { id, state: 'done', branch: `owl/job-${id}`, worktree });
      admins[id] = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    }
    db.close();
    // Job 1: work only its worktree ref holds. Job 2: a bisect mark on a commit its branch holds. Job 3: no refs.
    const lost = commitFile(owl.worktree(1), 'lost.txt', 'the only copy\n', 'work reset away');
    sh(owl.worktree(1), 'reset', '-q', '--hard', 'HEAD~');
    sh(owl.worktree(1), 'update-ref', 'refs/worktree/keep', lost);
    sh(owl.worktree(2), 'update-ref', 'refs/bisect/good', sh(owl.worktree(2), 'rev-parse', 'HEAD').trim());
    for (const id of [1, 2, 3]) rmSync(owl.worktree(id), { recursive: true, force: true });
    backdate(world, daysAgo(3));
    const before = inventory(admins[1] as string);

    const { report } = await pass({
      dir,
      config: { homes: [owl.home], minAge: '1h' },
      only: ['owl'],
      env: ownHomeEnv(owl.home),
    });

    const item = itemAt(report, admins[1] as string);
    expect(`${item.kind} ${item.verdict} ${item.reason}`).toBe('worktree-admin unfinished unique-commits');
    expect(item.detail).toContain('refs/worktree/keep');
    expect(diffInventories(before, inventory(admins[1] as string))).toEqual({ removed: [], changed: [], added: [] });
    expect(sh(owl.repo, 'cat-file', '-t', lost).trim()).toBe('commit');
    for (const id of [2, 3]) {
      expect(itemAt(report, admins[id] as string)).toMatchObject({ verdict: 'deleted', reason: 'stale-admin-entry' });
      expect(existsSync(admins[id] as string)).toBe(false);
    }
  });
});
