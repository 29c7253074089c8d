import path from 'node:path';
import { errorMessage, RemovalStopped } from '../model/errors.js';
import type { Reason } from '../model/types.js';
import { lastLine, runGit } from './git.js';
import { readRegularFileSync } from '../safety/fs/read.js';
import { lstatOrNull, lstatOrNullSync, type Stats } from '../safety/fs/stat.js';
import { writeBackFileSync } from '../safety/fs/write.js';
import { asOwner, type Owner } from '../safety/owners/owner.js';

/** git's own refusals of `git worktree remove` (its messages in LC_ALL=C), each with the verdict it stands for. */
const REFUSALS: ReadonlyArray<readonly [RegExp, 'refused' | 'unfinished', Reason]> = [
  [/contains modified or untracked files/, 'unfinished', 'uncommitted-changes'],
  [/cannot remove a locked working tree/, 'refused', 'git-locked'],
  [/containing submodules cannot be moved or removed/, 'refused', 'has-submodule'],
  [/is a main working tree|is not a working tree/, 'refused', 'not-a-worktree'],
  [/validation failed, cannot remove working tree/, 'refused', 'admin-mismatch'],
];

/** A lock file is a line of text; anything larger is not the lock that was judged. */
const MAX_LOCK_BYTES = 64 * 1024;

/** A worktree's `locked` file proven stale, and the exact bytes it was judged on. */
interface StaleLock {
  lockedFile: string;
  bytes: Uint8Array;
}

/**
 * `git worktree remove <path>` in the owner repository, as the owner: never `--force`, so git
 * itself refuses a dirty or locked tree, and no branch is ever deleted. Run by the executor alone,
 * right after the last proof. git's refusal is a stop (RemovalStopped) with what git found; any
 * other failure is an error. With `unlock` (a lock its tool left naming a process that is gone),
 * `git worktree unlock` runs first, while the `locked` file still holds exactly the bytes judged;
 * where the worktree then stays, the file is put back byte for byte (its mode and times too).
 */
export async function removeWorktreeWithGit(
  worktree: string,
  ownerRepo: string,
  owner: Owner | null,
  unlock?: StaleLock,
): Promise<void> {
  const was = unlock ? await unlockWorktree(worktree, ownerRepo, owner, unlock) : null;
  try {
    const result = await runGit(['worktree', 'remove', worktree], { cwd: ownerRepo, owner });
    if (result.code !== 0) {
      const message = result.stderr.split('\n').find((line) => line.startsWith('fatal: ')) ?? lastLine(result.stderr);
      for (const [pattern, verdict, reason] of REFUSALS)
        if (pattern.test(result.stderr))
          throw new RemovalStopped(verdict, reason, `git worktree remove refused it, nothing was removed: ${message}`);
      throw new Error(`git worktree remove ${worktree} failed (${result.code}): ${message}`);
    }
    if (await lstatOrNull(worktree)) throw new Error(`git worktree remove left ${worktree} in place`);
  } catch (err) {
    if (unlock && was) throw withNote(err, putLockBack(unlock, was, owner));
    throw err;
  }
}

/**
 * `git worktree unlock`, only while the lock is still the one judged, byte for byte; answers what
 * the file was (mode, times), to put it back.
 */
async function unlockWorktree(
  worktree: string,
  ownerRepo: string,
  owner: Owner | null,
  lock: StaleLock,
): Promise<Stats> {
  const changed = (why: string) => new RemovalStopped('refused', 'changed-during-inspection', `${why}; left alone`);
  let bytes: Buffer | null;
  let was: Stats | null;
  try {
    was = lstatOrNullSync(lock.lockedFile);
    bytes = readRegularFileSync(lock.lockedFile, MAX_LOCK_BYTES);
  } catch (err) {
    throw changed(`${lock.lockedFile} cannot be read again: ${errorMessage(err)}`);
  }
  if (!was || !bytes) throw changed(`${lock.lockedFile} is gone since it was judged`);
  if (!Buffer.from(lock.bytes).equals(bytes)) throw changed(`${lock.lockedFile} was rewritten since it was judged`);
  const result = await runGit(['worktree', 'unlock', worktree], { cwd: ownerRepo, owner });
  if (result.code !== 0)
    throw new Error(`git worktree unlock ${worktree} failed (${result.code}): ${lastLine(result.stderr)}`);
  return was;
}

/** Puts the `locked` file back as it was, as its owner, unless its admin entry is gone or a lock is there again. */
function putLockBack(lock: StaleLock, was: Stats, owner: Owner | null): string {
  try {
    if (!lstatOrNullSync(path.dirname(lock.lockedFile))?.isDirectory()) return 'its admin entry is gone';
    if (lstatOrNullSync(lock.lockedFile)) return `${lock.lockedFile} was locked again meanwhile and is left as it is`;
    asOwner(owner, () => writeBackFileSync(lock.lockedFile, lock.bytes, was));
    return `its lock ${lock.lockedFile} was put back as it was`;
  } catch (err) {
    return `its lock ${lock.lockedFile} could not be put back: ${errorMessage(err)}`;
  }
}

/** The error with a note on what became of the lock, keeping its kind (a stop stays a stop). */
function withNote(err: unknown, note: string): unknown {
  if (err instanceof RemovalStopped) return new RemovalStopped(err.verdict, err.reason, `${err.message}; ${note}`);
  return new Error(`${errorMessage(err)}; ${note}`);
}
