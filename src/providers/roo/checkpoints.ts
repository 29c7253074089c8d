// How Roo Code names its checkpoint repositories' commits, branches and folders: pure, for the judge.

/** `Task: <taskId>, Time: <ms>`: the subject of every checkpoint commit. */
export const TASK_SUBJECT = /^Task: (.+), Time: \d+$/;
export const INITIAL_SUBJECT = 'initial commit';
/** `roo-<taskId>`: the branch of a task in the per-workspace repositories Roo stopped making in 3.8. */
export const WORKSPACE_BRANCH = /^roo-(.+)$/;
/** `checkpoints/<first 8 hex of sha256(workspace)>`: the per-workspace layout. */
export const WORKSPACE_REPO = /^[0-9a-f]{8}$/;
