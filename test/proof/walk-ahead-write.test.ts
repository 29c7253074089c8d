import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { withProcessEnv } from '../helpers/process-env.js';
import { tempDir } from '../helpers/temp.js';
import { writeProjects } from '../providers/watchfire/fixture.js';
import { addWorktree, makeRepo } from '../helpers/git-fixtures.js';
import { lateWriter, loggedFind } from './late-write.js';

/**
 * Rule 21, the case that opened it: a Watchfire home is walked ahead (GNU find, beside the pass) at
 * the start of gathering; a short session writes a new transcript into it while a later provider
 * runs git; the plan used the early walk. The last proof, a walk of the quarantined tree by the
 * executor, sees the new file's ctime and puts the home back.
 */

/** Enough homes for the pass to start a walker (64 at least). */
const HOMES = 70;

function scene(options: { setBack?: string } = {}) {
  const dir = tempDir('aj-late-');
  const home = path.join(dir, 'home', 'ana');
  const root = path.join(home, '.watchfire');
  const runDir = path.join(dir, 'run');
  mkdirSync(root, { recursive: true });
  mkdirSync(runDir, { recursive: true });
  writeProjects({ dir, home, root, runDir, reportDir: path.join(runDir, 'report') }, []);
  const homes: string[] = [];
  for (let k = 0; k < HOMES; k += 1) {
    const session = path.join(root, 'codex-home', `gone-${String(k).padStart(2, '0')}:chat`);
    put(path.join(session, 'sessions', 'r.jsonl'), `{"turn":${k}}\n`);
    homes.push(session);
  }
  // A worktree set whose one worktree the pass asks git about after Watchfire has gathered.
  const repo = makeRepo(path.join(home, 'src', 'app'));
  const setRoot = path.join(dir, 'var-tmp', 'kanban', 'ws');
  const worktree = addWorktree(repo, path.join(setRoot, 'merged-clean'), 'vk/merged-clean');
  backdate(dir, daysAgo(3));
  homes.sort();
  const first = homes[0] as string;
  const transcript = path.join(first, 'sessions', 'late.jsonl');
  const writer = lateWriter(dir, {
    file: transcript,
    content: '{"the only copy":"of a short session"}\n',
    ...(options.setBack ? { setBack: options.setBack } : {}),
  });
  const find = loggedFind(dir);
  const config = {
    homes: [home],
    minAge: '1h',
    reportDir: path.join(runDir, 'report'),
    providers: {
      worktrees: { sets: [{ name: 'kanban', roots: [path.join(dir, 'var-tmp', 'kanban', '*')], idleAfter: '1d' }] },
    },
  };
  const run = () =>
    withProcessEnv({ PATH: `${writer.bin}:${find.bin}:${process.env.PATH}` }, () =>
      pass({ config, dir: runDir, env: { HOME: home } }),
    );
  return { dir, runDir, homes, first, transcript, worktree, writer, find, run };
}

describe('a write into an item after the walk ahead measured it', () => {
  for (const variant of [
    { name: 'a new transcript', setBack: undefined },
    { name: 'a new transcript dated three days back (tar x, cp -p)', setBack: '3 days ago' },
  ]) {
    it(`${variant.name}, written while a later provider runs git: the home is put back and refused`, async () => {
      const s = scene(variant.setBack ? { setBack: variant.setBack } : {});
      const before = inventory(s.dir, { exclude: [s.runDir] });

      const { report } = await s.run();

      expect(s.writer.wrote()).toBe(true);
      expect(s.find.walked(s.first)).toBe(true);
      const item = itemAt(report, s.first);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
      expect(item.detail).toContain(`${path.join(s.first, 'sessions')} changed at`);
      expect(item.detail).toContain('put back where it was');
      expect(readFileSync(s.transcript, 'utf8')).toBe('{"the only copy":"of a short session"}\n');
      // Everything the home held is where it was, the new transcript beside it.
      const after = inventory(s.dir, { exclude: [s.runDir] });
      const relative = path.relative(s.dir, s.first);
      const diff = diffInventories(before, after);
      expect(diff.removed.filter((key) => key.startsWith(relative))).toEqual([]);
      expect(diff.added.filter((key) => key.startsWith(relative))).toEqual([
        path.join(relative, 'sessions', 'late.jsonl'),
      ]);
      // The rest was proven dead and goes, the worktree included.
      for (const other of s.homes.slice(1)) {
        expect(itemAt(report, other).verdict).toBe('deleted');
        expect(existsSync(other)).toBe(false);
      }
      expect(itemAt(report, s.worktree)).toMatchObject({ verdict: 'deleted', reason: 'idle-clean' });
    });
  }
});
