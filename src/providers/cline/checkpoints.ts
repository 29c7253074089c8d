// How Cline names its checkpoint repositories' commits, branches and folders: pure, for the judge.

/** The identity Cline gives every checkpoint repository (`initShadowGit`). */
export const CLINE_USER_NAME = 'Cline Checkpoint';
// checkpoint@cline.bot since 3.5; the per-task repositories of 3.0 to 3.4 used noreply@example.com.
export const CLINE_USER_EMAILS = ['checkpoint@cline.bot', 'noreply@example.com'];

/**
 * Cline's `hashWorkingDir`: a 32-bit Java-style hash of the first workspace folder's path (UTF-16
 * code units), in decimal. It names `checkpoints/<hash>`. Collisions are possible, so it is only
 * a consistency check of a repository's `core.worktree` against its folder name.
 */
export function hashWorkingDir(workingDir: string): string {
  let hash = 0;
  for (let i = 0; i < workingDir.length; i++) hash = (hash * 31 + workingDir.charCodeAt(i)) >>> 0;
  return BigInt(hash).toString().slice(0, 13);
}

/** `checkpoint-<cwdHash>-<taskId>`: the subject of every checkpoint commit since 3.6.9. */
export const CHECKPOINT_SUBJECT = /^checkpoint-(\d+)-(.+)$/;

/** Subjects Cline writes that name no task: the first commit, and the 3.0 to 3.6.8 checkpoints. */
export const PLAIN_SUBJECTS = ['initial commit', 'checkpoint'];

/** `task-<taskId>`: the branch of each task in the repositories of 3.5 to 3.6.8. */
export const TASK_BRANCH = /^task-(.+)$/;
