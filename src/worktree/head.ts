import { git, runGit } from '../git/git.js';

/** A worktree's HEAD: the commit (null on an unborn branch) and the branch it is on (null when detached). */
export interface HeadState {
  commit: string | null;
  /** Full ref name, `refs/heads/<name>`. */
  branch: string | null;
}

export async function readHead(worktree: string): Promise<HeadState> {
  const commit = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: worktree });
  const branch = await runGit(['symbolic-ref', '--quiet', 'HEAD'], { cwd: worktree });
  if (commit.code !== 0 && commit.code !== 1) throw new Error(`git rev-parse HEAD failed in ${worktree}: ${commit.stderr.trim()}`);
  return {
    commit: commit.code === 0 ? commit.stdout.trim() : null,
    branch: branch.code === 0 ? branch.stdout.trim() : null,
  };
}

// The refs that keep a commit for a person: branches, remote-tracking branches and tags.
const KEEPING_REFS = ['refs/heads', 'refs/remotes', 'refs/tags'];

/** The branches, remote-tracking branches and tags that contain `commit` (`git for-each-ref --contains`). */
export async function refsContaining(worktree: string, commit: string): Promise<string[]> {
  const out = await git(['for-each-ref', '--contains', commit, '--format=%(refname)', ...KEEPING_REFS], { cwd: worktree });
  return out.split('\n').filter((line) => line !== '');
}

/**
 * How many commits reachable from `commit` no branch, remote-tracking branch or tag but `ownBranch`
 * holds: what removing the worktree (and one day its branch) would put at stake. Null when it
 * cannot be told (a branch name git would read as a pattern).
 */
export async function commitsOnlyHere(worktree: string, commit: string, ownBranch: string | null): Promise<number | null> {
  const own = ownBranch?.replace(/^refs\/heads\//, '') ?? null;
  if (own !== null && /[*?[\\]/.test(own)) return null;
  const exclude = own === null ? [] : [`--exclude=${own}`];
  const result = await runGit(['rev-list', '--count', commit, '--not', ...exclude, '--branches', '--remotes', '--tags'], { cwd: worktree });
  if (result.code !== 0) return null;
  const count = Number(result.stdout.trim());
  return Number.isFinite(count) ? count : null;
}
