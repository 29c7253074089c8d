import type { GitFacts, WorktreeEvidence } from '../../src/engines/git-worktree/evidence.js';
import type { NestedScan } from '../../src/engines/git-worktree/nested.js';

// Evidence for the pure worktree judges, shaped as src/engines/git-worktree/evidence.ts builds it from git.

export const WORKTREE = '/srv/repos/shop-worktrees/task-7';
export const HEAD = 'a'.repeat(40);
export const BRANCH = 'refs/heads/task-7';

/** A clean worktree on its own branch, whose HEAD `refs/heads/main` also holds. */
export function cleanFacts(overrides: Partial<GitFacts> = {}): GitFacts {
  return {
    changes: { changed: 0, untracked: 0, flagged: 0, sample: [] },
    head: { commit: HEAD, branch: BRANCH },
    containingRefs: [BRANCH, 'refs/heads/main'],
    commitsOnlyHere: 0,
    worktreeRefs: [],
    submodule: null,
    gitlinks: [],
    operation: null,
    ...overrides,
  };
}

export function linked(git: GitFacts | null, lockedReason: string | null = null, gitError?: string): WorktreeEvidence {
  return {
    path: WORKTREE,
    state: 'linked',
    link: {
      path: WORKTREE,
      adminDir: '/srv/repos/shop/.git/worktrees/task-7',
      id: 'task-7',
      commonDir: '/srv/repos/shop/.git',
      ownerRepo: '/srv/repos/shop',
      lockedReason,
    },
    git,
    ...(gitError === undefined ? {} : { gitError }),
  };
}

export const NOTHING_NESTED: NestedScan = { ok: true, found: { count: 0, paths: [] } };

export function nestedAt(...relative: string[]): NestedScan {
  return { ok: true, found: { count: relative.length, paths: relative.map((p) => `${WORKTREE}/${p}/.git`) } };
}
