import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { put } from '../../helpers/fs-fixtures.js';
import { commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

/**
 * Worktrees in each state that `git status` and the HEAD check alone do not see, made with the
 * real git. Every case leaves the tree clean to `git status` and its HEAD held by a branch
 * (`keep/<name>`), so that only the check under test can tell it apart from the clean control.
 */
export interface GitTruthCase {
  /** The verdict and reason a pass must give, `deleted` for the cases that lose nothing. */
  expect: string;
  make(worktree: string, repo: string, name: string): void;
}

/** Runs git where a failure is the point (a conflict) and answers nothing. */
function conflict(cwd: string, ...args: string[]): void {
  try {
    sh(cwd, ...args);
  } catch {
    // The conflict is the state wanted.
  }
}

/** Resolves every conflict to HEAD's side: the tree is clean again, the operation still waits. */
function resolveToHead(worktree: string): void {
  sh(worktree, 'checkout', 'HEAD', '--', 'README.md');
}

/** A commit on the worktree's branch held by a branch of its own, so HEAD is held by another ref. */
function heldCommit(worktree: string, repo: string, name: string, content: string): string {
  const commit = commitFile(worktree, 'README.md', content, `${name}: edit README`);
  sh(repo, 'branch', '-q', `keep/${name}`, commit);
  return commit;
}

/** A commit that then only `ref` (a per-worktree ref) holds: made, referenced, reset away. */
function onlyInWorktreeRef(ref: string): GitTruthCase['make'] {
  return (worktree) => {
    const commit = commitFile(worktree, 'only-copy.txt', `the only copy, held by ${ref}\n`, 'work only a ref holds');
    sh(worktree, 'reset', '-q', '--hard', 'HEAD~');
    sh(worktree, 'update-ref', ref, commit);
  };
}

function nestedRepository(where: string, separate: boolean): GitTruthCase['make'] {
  return (worktree, repo, name) => {
    const nested = path.join(worktree, ...where.split('/'));
    put(path.join(nested, 'lib.txt'), 'a library clone with an unpushed commit\n');
    const gitDir = path.join(path.dirname(repo), `separate-${name}.git`);
    sh(worktree, 'init', '-q', ...(separate ? [`--separate-git-dir=${gitDir}`] : []), nested);
    sh(nested, 'add', '.');
    sh(nested, 'commit', '-q', '-m', 'unpushed');
  };
}

export const GIT_TRUTH_CASES: Record<string, GitTruthCase> = {
  clean: { expect: 'deleted', make: () => {} },
  'reflog-only': {
    expect: 'deleted',
    make: (worktree) => {
      commitFile(worktree, 'scratch.txt', 'amended away\n', 'a commit reset away');
      sh(worktree, 'reset', '-q', '--hard', 'HEAD~');
    },
  },
  'ref-worktree': { expect: 'unfinished unique-commits', make: onlyInWorktreeRef('refs/worktree/keep') },
  'ref-bisect': { expect: 'unfinished unique-commits', make: onlyInWorktreeRef('refs/bisect/bad') },
  'ref-rewritten': { expect: 'unfinished unique-commits', make: onlyInWorktreeRef('refs/rewritten/onto') },
  'assume-unchanged-edit': {
    expect: 'unfinished uncommitted-changes',
    make: (worktree) => {
      sh(worktree, 'update-index', '--assume-unchanged', 'README.md');
      put(path.join(worktree, 'README.md'), '# project\n\nan edit git status does not show\n');
    },
  },
  'skip-worktree-deleted': {
    expect: 'unfinished uncommitted-changes',
    make: (worktree) => {
      sh(worktree, 'update-index', '--skip-worktree', 'README.md');
      rmSync(path.join(worktree, 'README.md'));
    },
  },
  'assume-unchanged-exec-bit': {
    expect: 'unfinished uncommitted-changes',
    make: (worktree) => {
      sh(worktree, 'update-index', '--assume-unchanged', 'README.md');
      chmodSync(path.join(worktree, 'README.md'), 0o755);
    },
  },
  'sparse-checkout': {
    expect: 'deleted',
    make: (worktree, repo, name) => {
      const commit = commitFile(worktree, 'docs/guide.md', 'a guide outside the cone\n', 'docs');
      sh(repo, 'branch', '-q', `keep/${name}`, commit);
      sh(worktree, 'sparse-checkout', 'set', 'src');
    },
  },
  'nested-ignored': { expect: 'unfinished nested-repository', make: nestedRepository('vendor/lib', false) },
  'nested-untracked': { expect: 'unfinished nested-repository', make: nestedRepository('tools/helper', false) },
  'nested-git-file': { expect: 'unfinished nested-repository', make: nestedRepository('vendor/separate', true) },
  merge: {
    expect: 'unfinished operation-in-progress',
    make: (worktree, repo, name) => {
      heldCommit(worktree, repo, name, `# ${name}\n`);
      conflict(worktree, 'merge', '-q', 'side');
      resolveToHead(worktree);
    },
  },
  rebase: {
    expect: 'unfinished operation-in-progress',
    make: (worktree, repo, name) => {
      heldCommit(worktree, repo, name, `# ${name}\n`);
      conflict(worktree, 'rebase', '-q', 'side');
      resolveToHead(worktree);
    },
  },
  'rebase-apply': {
    expect: 'unfinished operation-in-progress',
    make: (worktree, repo, name) => {
      heldCommit(worktree, repo, name, `# ${name}\n`);
      conflict(worktree, 'rebase', '-q', '--apply', 'side');
      resolveToHead(worktree);
    },
  },
  'cherry-pick': {
    expect: 'unfinished operation-in-progress',
    make: (worktree, repo, name) => {
      heldCommit(worktree, repo, name, `# ${name}\n`);
      conflict(worktree, 'cherry-pick', 'side');
      resolveToHead(worktree);
    },
  },
  // The first pick's conflict resolved and committed by hand: only sequencer/ says the rest waits.
  'cherry-pick-sequence': {
    expect: 'unfinished operation-in-progress',
    make: (worktree, repo, name) => {
      heldCommit(worktree, repo, name, `# ${name}\n`);
      conflict(worktree, 'cherry-pick', 'side', 'side-more');
      resolveToHead(worktree);
      sh(worktree, 'commit', '-q', '--allow-empty', '--no-edit');
      sh(repo, 'branch', '-q', '-f', `keep/${name}`, sh(worktree, 'rev-parse', 'HEAD').trim());
    },
  },
  revert: {
    expect: 'unfinished operation-in-progress',
    make: (worktree, repo, name) => {
      const first = commitFile(worktree, 'README.md', '# first\n', 'first edit');
      heldCommit(worktree, repo, name, '# second\n');
      conflict(worktree, 'revert', '--no-edit', first);
      resolveToHead(worktree);
    },
  },
  bisect: {
    expect: 'unfinished operation-in-progress',
    make: (worktree) => {
      sh(worktree, 'bisect', 'start');
    },
  },
  submodule: {
    expect: 'refused has-submodule',
    make: (worktree, repo, name) => {
      const lib = makeRepo(path.join(path.dirname(repo), `lib-${name}`));
      sh(worktree, 'submodule', 'add', '-q', lib, 'lib');
      sh(worktree, 'commit', '-q', '-m', 'add submodule');
      sh(repo, 'branch', '-q', `keep/${name}`, sh(worktree, 'rev-parse', 'HEAD').trim());
    },
  },
};

/**
 * An owner repository whose `side` branch rewrites README.md (every conflict below is with it),
 * `side-more` one commit further, and
 * whose `vendor/` is ignored for all its worktrees.
 */
export function gitTruthRepo(dir: string): string {
  return prepareRepo(makeRepo(dir));
}

/** The same for a repository made elsewhere (Owl's project). */
export function prepareRepo(repo: string): string {
  sh(repo, 'checkout', '-q', '-b', 'side');
  commitFile(repo, 'README.md', '# the side branch\n', 'side: rewrite README');
  sh(repo, 'checkout', '-q', '-b', 'side-more');
  commitFile(repo, 'more.txt', 'more from the side\n', 'side-more: one more commit');
  sh(repo, 'checkout', '-q', 'main');
  put(path.join(repo, '.git', 'info', 'exclude'), 'vendor/\n');
  return repo;
}
