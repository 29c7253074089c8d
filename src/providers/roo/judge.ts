import type { OwnerJudgement } from '../../model/types.js';
import type { GarbageRefusal } from '../../engines/git-garbage/reasons.js';
import {
  identityProblem,
  lastCommitText,
  list,
  refused,
  settlementBlocker,
} from '../../engines/vscode-storage/judging.js';
import type { Settlement } from '../../engines/vscode-storage/settle.js';
import type { ShadowRepoFacts } from '../../engines/vscode-storage/shadow-repo.js';
import type { RooHistory } from './history.js';
import { INITIAL_SUBJECT, TASK_SUBJECT, WORKSPACE_BRANCH } from './checkpoints.js';
import type { RooExtension } from './layout.js';
import type { RooRepoEntry } from './listing.js';

/** What the rule knows of one product's history for one extension. */
export interface RooPlace {
  extension: RooExtension;
  sourceProblem?: string;
  history: RooHistory | null;
  settlement: Settlement;
  /** Why the installed extension no longer reads these tasks (Kilo Code 7), or null. */
  legacyFormat: string | null;
}

/**
 * What the repository's own workspace says: a `.vscode/settings.json` there may set a custom storage
 * path that no user-level setting shows, and the task's history would then be kept there. Read
 * only to find a task alive, never to find one dead (the workspace may be gone or unmounted).
 */
export type WorkspaceBase =
  | { state: 'none' }
  | { state: 'names-task'; task: string; source: string }
  | { state: 'silent'; base: string }
  | { state: 'problem'; reason: 'custom-path-unmounted' | 'evidence-unreadable'; detail: string };

export interface RepoTasks {
  tasks: string[];
  unknown: string[];
}

export function repoTasks(entry: RooRepoEntry, facts: ShadowRepoFacts): RepoTasks {
  const tasks = new Set<string>(entry.layout === 'task' ? [entry.name] : []);
  const unknown: string[] = [];
  for (const subject of facts.commits?.subjects ?? []) {
    const task = TASK_SUBJECT.exec(subject);
    if (task) tasks.add(task[1] as string);
    else if (subject !== INITIAL_SUBJECT) unknown.push(subject);
  }
  for (const branch of facts.commits?.branches ?? []) {
    const task = WORKSPACE_BRANCH.exec(branch);
    if (task) tasks.add(task[1] as string);
  }
  return { tasks: [...tasks].sort(), unknown };
}

/**
 * The rule for one per-task repository `tasks/<id>/checkpoints`, from its facts alone. Dead only
 * when every history source of the product was read and reads the same twice (every state
 * database, and in every base the index and each task's `history_item.json`), no custom storage
 * path is configured without being readable, the repository is the extension's, no task it names
 * is in any of them (nor in its own workspace's custom storage path), every commit is the
 * extension's, and git is not writing it.
 */
export function judgeRooRepo(
  entry: RooRepoEntry,
  facts: ShadowRepoFacts,
  place: RooPlace,
  workspace: WorkspaceBase,
): OwnerJudgement {
  const { extension } = place;
  if (place.sourceProblem || !place.history) {
    return refused('source-unreadable', place.sourceProblem ?? 'the history of this product was not read');
  }
  const history = place.history;
  if (history.customProblem)
    return refused('custom-path-unmounted', `${history.customProblem}: the tasks kept there cannot be seen`);
  const identity = identityProblem(facts, {
    name: extension.userName,
    emails: [extension.userEmail],
    owner: extension.label,
  });
  if (identity) return identity;
  if (facts.gitProblem || !facts.commits)
    return refused('git-failed', facts.gitProblem ?? `the commits of ${facts.gitdir} were not read`);

  const { tasks, unknown } = repoTasks(entry, facts);
  if (entry.layout === 'workspace') {
    return {
      decision: 'unfinished',
      reason: 'unexpected-workspace-repo',
      detail: `a per-workspace repository (tasks ${list(tasks, 3) || 'none'}), a layout ${extension.label} has not made since Roo Code 3.8; reported, never deleted; worktree ${facts.config?.worktree}, ${lastCommitText(facts)}`,
    };
  }
  const living = tasks.flatMap((task) => {
    const where = history.tasks.get(task);
    return where === undefined ? [] : [`task ${task} is in ${where}`];
  });
  if (workspace.state === 'names-task') living.push(`task ${workspace.task} is in ${workspace.source}`);
  if (living.length > 0) {
    if (place.legacyFormat) {
      return {
        decision: 'unfinished',
        reason: 'alive-legacy-format',
        detail: `${list(living, 3)}, but ${place.legacyFormat}; worktree ${facts.config?.worktree}, ${lastCommitText(facts)}`,
      };
    }
    return { decision: 'kept', reason: 'task-in-history', detail: list(living, 3) };
  }
  if (workspace.state === 'problem') return refused(workspace.reason, workspace.detail);
  if (unknown.length > 0) {
    return {
      decision: 'unfinished',
      reason: 'unknown-commits',
      detail: `no task that exists names it, but ${unknown.length} commit subject(s) are not ${extension.label}'s (${list(unknown, 3)}): someone committed into it; look before removing it`,
    };
  }
  if (facts.lockFiles.length > 0)
    return refused('git-lock-file', `git is writing it (or died while it did): ${list(facts.lockFiles, 3)}`);
  const unsettled = settlementBlocker(place.settlement);
  if (unsettled) return unsettled;
  const elsewhere = workspace.state === 'silent' ? `, nor in its workspace's own storage path ${workspace.base}` : '';
  return {
    decision: 'delete',
    reason: 'task-deleted',
    detail: `task ${list(tasks, 3)} is in no history source (${list(history.sources, 4)})${elsewhere}, and every commit is ${extension.label}'s; ${lastCommitText(facts)}`,
  };
}

/** A task folder of a base that no history names: conversation data, reported and never deleted. */
export function judgeRooOrphan(id: string, folder: string, entries: string[], place: RooPlace): OwnerJudgement | null {
  const history = place.history;
  if (place.sourceProblem || !history || history.customProblem || history.tasks.has(id)) return null;
  return {
    decision: 'unfinished',
    reason: 'orphan-task-folder',
    detail: `task ${id} is in no history source of ${place.extension.label} (${list(history.sources, 3)}); ${folder} holds ${list(entries, 4)}: conversation data, not scratch; delete it by hand if it is no longer wanted`,
  };
}

/**
 * Whether git's temporary files in a repository may be judged at all: only in one of the
 * extension's (its identity), alive or not; then, why none of them may go now (the history or a
 * custom storage path unreadable), or nothing. No I/O.
 */
export function rooGarbageStand(
  facts: ShadowRepoFacts,
  place: RooPlace,
): { recognised: false } | { recognised: true; refusal?: GarbageRefusal } {
  const { extension } = place;
  const identity = identityProblem(facts, {
    name: extension.userName,
    emails: [extension.userEmail],
    owner: extension.label,
  });
  if (identity) return { recognised: false };
  const problem = place.sourceProblem ?? (place.history ? undefined : 'the history of this product was not read');
  if (problem)
    return { recognised: true, refusal: { decision: 'refused', reason: 'source-unreadable', detail: problem } };
  const custom = place.history?.customProblem;
  if (custom)
    return {
      recognised: true,
      refusal: {
        decision: 'refused',
        reason: 'custom-path-unmounted',
        detail: `${custom}: the tasks kept there cannot be seen`,
      },
    };
  return { recognised: true };
}
