import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { examineSetWorktrees } from '../../../src/engines/git-worktree/examine.js';
import { judgeSetWorktree, type IdlePolicy } from '../../../src/engines/git-worktree/judge.js';
import { measureTree } from '../../../src/safety/walk/walk.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { gitWrapper } from '../../helpers/git-wrapper.js';
import { tempDir } from '../../helpers/temp.js';
import { addWorktree, makeRepo, sh } from '../../helpers/git-fixtures.js';

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

/** Real worktrees, a git on PATH that notes every run, and the examination the worktree sets make. */
function world() {
  const dir = tempDir('aj-active-');
  const repo = makeRepo(path.join(dir, 'repo'));
  const tree = (name: string) => addWorktree(repo, path.join(dir, 'set', name), `agent/${name}`);
  const trees = { active: tree('active'), idle: tree('idle'), setBack: tree('set-back') };
  backdate(dir, daysAgo(5));
  const log = path.join(dir, 'git.log');
  writeFileSync(log, '');
  process.env.PATH = `${gitWrapper(dir, `echo "$*" >> '${log}'`)}:${savedPath}`;
  const policy: IdlePolicy = { set: 'test', idleAfterMs: 3 * 86_400_000, nowMs: Date.now() };
  /** The git runs that named this worktree (a status started by `for-each-repo` names it in its config). */
  const runsNaming = (worktree: string) =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes(worktree));
  return { dir, repo, trees, policy, runsNaming };
}

describe('the worktree sets: git is asked only about a tree that may be idle', () => {
  it('asks nothing of a worktree whose index was just written, and judges it on its age as before', async () => {
    const w = world();
    // An agent at work: `git add` rewrote the index a minute ago.
    put(path.join(w.trees.active, 'draft.md'), 'work in progress\n');
    sh(w.trees.active, 'add', 'draft.md');

    const examined = await examineSetWorktrees(
      [w.trees.active, w.trees.idle].map((worktree) => ({ worktree, policy: w.policy })),
      { measure: measureTree },
    );

    expect(w.runsNaming(w.trees.active)).toEqual([]);
    expect(w.runsNaming(w.trees.idle).length).toBeGreaterThan(0);
    const [active, idle] = examined.map((e) => judgeSetWorktree(e.evidence, e.newest, w.policy, e.nested));
    expect(active).toMatchObject({ decision: 'kept', reason: 'not-idle' });
    expect(idle).toMatchObject({ decision: 'delete', reason: 'idle-clean' });
  });

  it('asks git after the walk about a tree that looked written but proved idle, and finds its untracked file', async () => {
    const w = world();
    put(path.join(w.trees.setBack, 'notes', 'plan.md'), 'a plan nobody committed\n');
    backdate(w.trees.setBack, daysAgo(5));
    // Its top folder was touched just now, and set back again before the walk reached it.
    utimesSync(w.trees.setBack, new Date(), new Date());
    const setBackWhileWalked = (root: string) => {
      if (root === w.trees.setBack) backdate(root, daysAgo(5));
      return measureTree(root);
    };

    const [examined] = await examineSetWorktrees([{ worktree: w.trees.setBack, policy: w.policy }], {
      measure: setBackWhileWalked,
    });

    const { evidence, newest, nested } = examined as NonNullable<typeof examined>;
    expect(w.runsNaming(w.trees.setBack).length).toBeGreaterThan(0);
    expect(judgeSetWorktree(evidence, newest, w.policy, nested)).toMatchObject({
      decision: 'unfinished',
      reason: 'uncommitted-changes',
    });
  });
});
