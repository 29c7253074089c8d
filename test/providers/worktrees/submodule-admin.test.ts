import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { DEAD_ITEMS } from '../../proof/scenes.js';
import { commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

/**
 * Rule 24 for the worktrees provider: an admin entry `<common>/worktrees/<id>` whose worktree
 * folder is gone, but which holds a submodule's git directory (`modules/`), is never pruned. git
 * keeps a linked worktree's submodule repositories there, so a commit made in the submodule and
 * never pushed lives nowhere else. A set removes its dead worktrees with `git worktree remove`,
 * one at a time, and never prunes: the entry stays byte for byte while the set's dead worktree
 * beside it goes.
 */

const SETS = DEAD_ITEMS.filter(([label]) => label.startsWith('worktrees worktree'));

describe('worktrees: a stale admin entry that holds submodule repositories is never pruned (rule 24)', () => {
  for (const [label, build] of SETS) {
    it(`${label}: the entry whose modules/ holds the only copy of a submodule commit stays byte for byte`, async () => {
      const s = build();
      const repo = s.repo as string;
      const upstream = makeRepo(path.join(s.world, 'upstream', 'lib'));
      // A second worktree of the set, beside the dead one, cloned a submodule and committed in it.
      const gone = path.join(path.dirname(s.item), 'gone');
      sh(repo, 'worktree', 'add', '-q', '-b', 'gone', gone);
      const admin = sh(gone, 'rev-parse', '--absolute-git-dir').trim();
      sh(gone, 'submodule', 'add', '-q', upstream, 'vendor/lib');
      const unpushed = commitFile(path.join(gone, 'vendor', 'lib'), 'patch.c', 'a fix\n', 'fix in lib');
      const modules = path.join(admin, 'modules', 'vendor', 'lib');
      expect(existsSync(path.join(modules, 'HEAD'))).toBe(true);
      // Its folder is gone: the admin entry is stale, and holds that commit alone.
      rmSync(gone, { recursive: true, force: true });
      s.age();
      const before = inventory(admin);

      const { report, exitCode } = await pass({ dir: s.run, config: s.config, only: s.only, env: s.env });

      expect(exitCode).toBe(0);
      // The set's dead worktree went, with its own admin entry: the pass was deleting there.
      expect(itemAt(report, s.item)).toMatchObject({ verdict: 'deleted', reason: s.reason });
      expect(existsSync(s.adminDir as string)).toBe(false);
      // The stale entry: no item deleted it or anything in it, and it is there byte for byte.
      const touching = report.items.filter(
        (item) => item.path !== null && (item.path === admin || item.path.startsWith(`${admin}${path.sep}`)),
      );
      expect(touching.filter((item) => item.verdict === 'deleted')).toEqual([]);
      expect(diffInventories(before, inventory(admin))).toEqual({ removed: [], changed: [], added: [] });
      expect(sh(s.world, '--git-dir', modules, '--work-tree', s.world, 'cat-file', '-t', unpushed).trim()).toBe(
        'commit',
      );
      expect(sh(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${gone}\n`);
    });
  }
});
