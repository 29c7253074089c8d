import { RemovalStopped } from '../model/errors.js';
import type { Reason } from '../model/types.js';
import { lastLine, runGit } from './git.js';
import { lstatOrNull } from '../safety/fs/stat.js';
import type { Owner } from '../safety/owners/owner.js';

/** git's own refusals of `git worktree remove` (its messages in LC_ALL=C), each with the verdict it stands for. */
const REFUSALS: ReadonlyArray<readonly [RegExp, 'refused' | 'unfinished', Reason]> = [
  [/contains modified or untracked files/, 'unfinished', 'uncommitted-changes'],
  [/cannot remove a locked working tree/, 'refused', 'git-locked'],
  [/containing submodules cannot be moved or removed/, 'refused', 'has-submodule'],
  [/is a main working tree|is not a working tree/, 'refused', 'not-a-worktree'],
  [/validation failed, cannot remove working tree/, 'refused', 'admin-mismatch'],
];

/**
 * `git worktree remove <path>` in the owner repository, as the owner: never `--force`, so git
 * itself refuses a dirty or locked tree, and no branch is ever deleted. Run by the executor alone,
 * right after the last proof. git's refusal is a stop (RemovalStopped) with what git found; any
 * other failure is an error.
 */
export async function removeWorktreeWithGit(worktree: string, ownerRepo: string, owner: Owner | null): Promise<void> {
  const result = await runGit(['worktree', 'remove', worktree], { cwd: ownerRepo, owner });
  if (result.code !== 0) {
    const message = result.stderr.split('\n').find((line) => line.startsWith('fatal: ')) ?? lastLine(result.stderr);
    for (const [pattern, verdict, reason] of REFUSALS)
      if (pattern.test(result.stderr))
        throw new RemovalStopped(verdict, reason, `git worktree remove refused it, nothing was removed: ${message}`);
    throw new Error(`git worktree remove ${worktree} failed (${result.code}): ${message}`);
  }
  if (await lstatOrNull(worktree)) throw new Error(`git worktree remove left ${worktree} in place`);
}
