import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNullSync, realpathSync } from '../../safety/fs/stat.js';
import { readFileOrNullSync, readRegularFileSync } from '../../safety/fs/read.js';

/** Where a linked worktree's git data lives, read from its `.git` file and its admin entry. */
export interface WorktreeLink {
  /** The worktree folder, absolute. */
  path: string;
  /** `<common>/worktrees/<id>`: the admin entry git keeps for this worktree. */
  adminDir: string;
  id: string;
  /** The repository's common git dir (`<repo>/.git` for an ordinary repository). */
  commonDir: string;
  /** The folder `git worktree remove` runs in: the main worktree, or the git dir of a bare repository. */
  ownerRepo: string;
  /** The content of `<admin>/locked` (the lock reason, often empty), or null when not locked. */
  lockedReason: string | null;
}

export type LinkProblem = 'not-a-worktree' | 'owner-unavailable' | 'admin-entry-missing' | 'admin-mismatch';

export type LinkResult = { ok: true; link: WorktreeLink } | { ok: false; problem: LinkProblem; detail: string };

const fail = (problem: LinkProblem, detail: string): LinkResult => ({ ok: false, problem, detail });

/**
 * Follows a worktree's `.git` file to its admin entry and the owner repository, and checks that the
 * entry points back at this folder. Nothing here runs git, so a repository on a missing volume is
 * told apart from a broken one without waiting on it. The few small reads are synchronous: their
 * promise forms cost more in threadpool round trips than the reads themselves.
 */
export function readWorktreeLink(worktree: string): LinkResult {
  const folder = path.resolve(worktree);
  const gitFile = path.join(folder, '.git');
  try {
    const stats = lstatOrNullSync(gitFile);
    if (!stats?.isFile())
      return fail('not-a-worktree', `${gitFile} is not a file naming a gitdir, so ${folder} is no linked git worktree`);
    const text = readFileOrNullSync(gitFile) ?? '';
    const match = /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(text);
    if (!match?.[1]) return fail('not-a-worktree', `${gitFile} names no gitdir`);
    const adminDir = path.resolve(folder, match[1]);
    if (path.basename(path.dirname(adminDir)) !== 'worktrees') {
      return fail(
        'not-a-worktree',
        `${gitFile} names ${adminDir}, which is no worktree admin entry (a submodule or a separate git dir)`,
      );
    }
    const commonGuess = path.dirname(path.dirname(adminDir));

    const admin = lstatOrNullSync(adminDir);
    if (!admin?.isDirectory()) {
      const repoThere = lstatOrNullSync(commonGuess);
      if (!repoThere) {
        return fail(
          'owner-unavailable',
          `the owner repository ${commonGuess} named by ${gitFile} cannot be reached (a missing volume?)`,
        );
      }
      return fail(
        'admin-entry-missing',
        `the owner repository has no admin entry ${adminDir} for this worktree any more, so git no longer knows it`,
      );
    }
    const commonText = readFileOrNullSync(path.join(adminDir, 'commondir'));
    const commonDir = commonText ? path.resolve(adminDir, commonText.trim()) : commonGuess;
    if (!lstatOrNullSync(path.join(commonDir, 'HEAD'))) {
      return fail(
        'owner-unavailable',
        `the common git dir ${commonDir} of ${folder} has no HEAD; its repository cannot be reached`,
      );
    }

    const backText = readFileOrNullSync(path.join(adminDir, 'gitdir'));
    if (!backText)
      return fail('admin-mismatch', `the admin entry ${adminDir} has no gitdir file pointing back at ${folder}`);
    const back = path.resolve(adminDir, backText.trim());
    if (!samePlace(path.dirname(back), folder)) {
      return fail('admin-mismatch', `the admin entry ${adminDir} belongs to ${path.dirname(back)}, not to ${folder}`);
    }

    const ownerRepo = path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir;
    const lockedReason = readFileOrNullSync(path.join(adminDir, 'locked'));
    return {
      ok: true,
      link: {
        path: folder,
        adminDir,
        id: path.basename(adminDir),
        commonDir,
        ownerRepo,
        lockedReason: lockedReason === null ? null : lockedReason.trim(),
      },
    };
  } catch (err) {
    return fail('owner-unavailable', `cannot read the git link of ${folder}: ${errorMessage(err)}`);
  }
}

function samePlace(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A lock file is a line of text; anything larger is not a lock a tool wrote. */
const MAX_LOCK_BYTES = 64 * 1024;

/**
 * The exact bytes of a worktree's `<admin>/locked`, never through a link; null where it is not
 * there or is no small regular file (then no tool's rule may call it stale).
 */
export function readLockBytes(adminDir: string): Uint8Array | null {
  try {
    return readRegularFileSync(path.join(adminDir, 'locked'), MAX_LOCK_BYTES);
  } catch {
    return null;
  }
}
