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
import type { ClineHistory } from './history.js';
import { normalizeFolder } from './folders.js';
import { whereTaskExists } from './task-lookup.js';
import {
  CHECKPOINT_SUBJECT,
  CLINE_USER_EMAILS,
  CLINE_USER_NAME,
  PLAIN_SUBJECTS,
  TASK_BRANCH,
  hashWorkingDir,
} from './checkpoints.js';
import type { ClineRepoEntry } from './listing.js';

/** What the rule knows of one location, read once for all its repositories. */
export interface ClinePlace {
  /** Why the location's history cannot be read in full, when it cannot: nothing there is proven dead. */
  sourceProblem?: string;
  history: ClineHistory | null;
  settlement: Settlement;
  /**
   * Why the Cline that uses this place no longer reads its checkpoint repositories (Cline 4), with
   * the way to drop them; null when it does, or when that cannot be known.
   */
  legacyFormat: string | null;
}

/** The tasks a repository belongs to, read from its commits, branches and folder. */
interface RepoTasks {
  tasks: string[];
  /** Subjects no Cline writes: someone else committed here. */
  unknown: string[];
}

function repoTasks(entry: ClineRepoEntry, facts: ShadowRepoFacts): RepoTasks {
  const tasks = new Set<string>();
  const unknown: string[] = [];
  if (entry.layout === 'task') tasks.add(entry.name);
  for (const subject of facts.commits?.subjects ?? []) {
    const checkpoint = CHECKPOINT_SUBJECT.exec(subject);
    // A checkpoint commit names the repository's own hash; another hash is not Cline's doing here.
    if (checkpoint && (entry.layout === 'task' || checkpoint[1] === entry.name)) tasks.add(checkpoint[2] as string);
    else if (!PLAIN_SUBJECTS.includes(subject)) unknown.push(subject);
  }
  for (const branch of facts.commits?.branches ?? []) {
    const task = TASK_BRANCH.exec(branch);
    if (task) tasks.add(task[1] as string);
  }
  return { tasks: [...tasks].sort(), unknown };
}

/**
 * The rule for one Cline checkpoint repository, from its facts alone (no I/O). Dead only when every
 * history source was read and reads the same twice, the repository is Cline's (its identity, and
 * its folder named by the hash of its worktree), no task that exists names it (a commit, a branch,
 * its task folder) and no history item was started in its worktree, every commit is Cline's, and
 * nothing holds it (git's lock files, the CLI's folder lock). Whether the worktree exists is never
 * looked at: a missing folder proves nothing.
 */
export function judgeClineRepo(entry: ClineRepoEntry, facts: ShadowRepoFacts, place: ClinePlace): OwnerJudgement {
  if (place.sourceProblem || !place.history) {
    return refused('source-unreadable', place.sourceProblem ?? 'the history of this place was not read');
  }
  const history = place.history;
  const identity = identityProblem(facts, { name: CLINE_USER_NAME, emails: CLINE_USER_EMAILS, owner: 'Cline' });
  if (identity) return identity;
  const worktree = facts.config?.worktree as string;
  if (entry.layout === 'workspace' && hashWorkingDir(worktree) !== entry.name) {
    return refused(
      'worktree-hash-mismatch',
      `core.worktree ${worktree} hashes to ${hashWorkingDir(worktree)} by Cline's hashWorkingDir, not to the folder name ${entry.name}`,
    );
  }
  if (facts.gitProblem || !facts.commits) {
    return refused('git-failed', facts.gitProblem ?? `the commits of ${facts.gitdir} were not read`);
  }

  const { tasks, unknown } = repoTasks(entry, facts);
  const living = tasks.flatMap((task) => {
    const where = whereTaskExists(history, task);
    return where === undefined ? [] : [`task ${task} exists (${where})`];
  });
  // A workspace repository also serves tasks its commits do not name yet (a task that has just
  // started, a multi-root one); a per-task repository is its task's alone.
  const startedHere = entry.layout === 'workspace' ? history.worktrees.get(normalizeFolder(worktree)) : undefined;
  if (startedHere !== undefined) living.push(`task ${startedHere} was started in its worktree ${worktree}`);
  if (living.length > 0) return alive(entry, facts, place, living);

  if (unknown.length > 0) {
    return {
      decision: 'unfinished',
      reason: 'unknown-commits',
      detail: `no task that exists names it, but ${unknown.length} commit subject(s) are not Cline's (${list(unknown, 3)}): someone committed into it; look before removing it`,
    };
  }
  if (facts.lockFiles.length > 0) {
    return refused('git-lock-file', `git is writing it (or died while it did): ${list(facts.lockFiles, 3)}`);
  }
  const lockHolder = entry.layout === 'workspace' ? history.lockedCheckpoints.get(entry.name) : undefined;
  if (lockHolder !== undefined) {
    return refused(
      'cline-lock-held',
      `Cline holds the folder lock ~/.cline/data/checkpoints/${entry.name} (task ${lockHolder}) in its locks.db`,
    );
  }
  const unsettled = settlementBlocker(place.settlement);
  if (unsettled) return unsettled;

  const named =
    tasks.length > 0
      ? `its task${tasks.length > 1 ? 's' : ''} ${list(tasks, 5)} ${tasks.length > 1 ? 'are' : 'is'} in no history source`
      : 'it names no task (only its first commit)';
  return {
    decision: 'delete',
    reason: 'task-deleted',
    detail: `${named} (${list(history.sources, 4)})${entry.layout === 'workspace' ? `, no history item was started in its worktree ${worktree}` : ''}, and every commit is Cline's; ${lastCommitText(facts)}`,
  };
}

function alive(entry: ClineRepoEntry, facts: ShadowRepoFacts, place: ClinePlace, living: string[]): OwnerJudgement {
  const why = list(living, 3);
  if (entry.layout === 'task') {
    return {
      decision: 'unfinished',
      reason: 'alive-legacy-format',
      detail: `${why}, but this per-task repository is of Cline 3.0 to 3.4, which no Cline since 3.5 reads (Cline 3 removes them all itself at start-up once the newest task folder has one); worktree ${facts.config?.worktree}, ${lastCommitText(facts)}. Deleting the task in Cline removes its folder`,
    };
  }
  if (place.legacyFormat) {
    return {
      decision: 'unfinished',
      reason: 'alive-legacy-format',
      detail: `${why}, but ${place.legacyFormat}; worktree ${facts.config?.worktree}, ${lastCommitText(facts)}`,
    };
  }
  return { decision: 'kept', reason: 'task-in-history', detail: why };
}

/** A task folder with a conversation that no history source names: reported, never deleted. */
export function judgeOrphanFolder(id: string, folder: string, place: ClinePlace): OwnerJudgement | null {
  const history = place.history;
  if (place.sourceProblem || !history || history.tasks.has(id) || !history.conversations.has(id)) return null;
  return {
    decision: 'unfinished',
    reason: 'orphan-task-folder',
    detail: `task ${id}'s conversation is in no history source (${list(history.sources, 3)}); Cline can rebuild its history from ${folder} ("Reconstruct Task History"). It is conversation data, not scratch: delete it by hand if it is no longer wanted`,
  };
}

/**
 * Whether git's temporary files in a repository may be judged at all: only in one of Cline's
 * (its identity, its folder named by its worktree's hash), alive or not; then, why none of them
 * may go now (the history unreadable, the CLI's folder lock held), or nothing. No I/O.
 */
export function clineGarbageStand(
  entry: ClineRepoEntry,
  facts: ShadowRepoFacts,
  place: ClinePlace,
): { recognised: false } | { recognised: true; refusal?: GarbageRefusal } {
  const identity = identityProblem(facts, { name: CLINE_USER_NAME, emails: CLINE_USER_EMAILS, owner: 'Cline' });
  const worktree = facts.config?.worktree;
  if (identity || !worktree || (entry.layout === 'workspace' && hashWorkingDir(worktree) !== entry.name))
    return { recognised: false };
  if (place.sourceProblem || !place.history)
    return {
      recognised: true,
      refusal: refusedGarbage('source-unreadable', place.sourceProblem ?? 'the history of this place was not read'),
    };
  const lockHolder = entry.layout === 'workspace' ? place.history.lockedCheckpoints.get(entry.name) : undefined;
  if (lockHolder !== undefined)
    return {
      recognised: true,
      refusal: refusedGarbage(
        'cline-lock-held',
        `Cline holds the folder lock ~/.cline/data/checkpoints/${entry.name} (task ${lockHolder}) in its locks.db: the repository is being written`,
      ),
    };
  return { recognised: true };
}

const refusedGarbage = (reason: string, detail: string): GarbageRefusal => ({ decision: 'refused', reason, detail });
