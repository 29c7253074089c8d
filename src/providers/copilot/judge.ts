import type { OwnerJudgement } from '../../model/types.js';
import { formatBytes } from '../../util/format.js';
import { LOG_KEEP_NEWEST, LOG_RETENTION_MS } from './layout.js';
import type { SessionFolder } from './sessions.js';

/** Whether the process a name or a lock names is alive, as the pass's look at /proc says. */
export type Liveness =
  | { state: 'alive'; process: string }
  | { state: 'dead' }
  /** Processes cannot be seen (rule 19): it may be alive. */
  | { state: 'unknown'; why: string };

/** One file of `logs/` that Copilot's own rule counts (`process-*.log`). */
export interface LogFacts {
  path: string;
  /** A regular file, a link (never followed), or anything else. */
  type: 'file' | 'link' | 'other';
  /** Its mtime, as lstat gives it. */
  mtimeMs: number;
  /** The pid its name gives (`process-<ms>-<pid>.log`), or null for a name without one. */
  pid: number | null;
  writer: Liveness | null;
  /** How many regular files of the folder Copilot's rule counts. */
  counted: number;
  /** How many of them were written strictly later than this one. */
  newer: number;
}

const DAY = 86_400_000;

/**
 * Copilot CLI's own log rule (app.js `OOo`, run 60 s after a process starts): every counted file
 * older than seven days goes, and with more than fifty, every one past the fifty newest by mtime.
 * Applied only to regular files; a file is past the fifty newest only when fifty are strictly
 * newer (Copilot breaks ties in listing order, which the pass does not know), so the pass deletes
 * no file Copilot would keep. Stricter than Copilot: never a log whose writer (the pid of its
 * name) is alive, nor one whose writer cannot be told.
 */
export function judgeLog(facts: LogFacts, nowMs: number): OwnerJudgement {
  if (facts.type !== 'file')
    return {
      decision: 'refused',
      reason: 'symlink',
      detail: `${facts.type === 'link' ? 'a link named like a log (never followed: Copilot would judge it by its target)' : 'not a regular file'}; only Copilot's own log files are ever deleted`,
    };
  const writer = facts.writer;
  if (writer?.state === 'alive')
    return {
      decision: 'kept',
      reason: 'log-writer-live',
      detail: `the log of ${writer.process}, which is alive (Copilot appends to it while it runs)`,
    };
  if (writer?.state === 'unknown')
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether process ${facts.pid} that writes it is alive cannot be told: ${writer.why}`,
    };
  const age = nowMs - facts.mtimeMs;
  const written = `last written ${new Date(facts.mtimeMs).toISOString()}`;
  const whose = facts.pid === null ? 'a log' : `the log of process ${facts.pid}, which has ended,`;
  if (age > LOG_RETENTION_MS)
    return {
      decision: 'delete',
      reason: 'log-retention',
      detail: `${whose} ${written} (${(age / DAY).toFixed(1)} days ago): past Copilot CLI's own seven-day log retention, which Copilot applies only in a process that runs 60 s`,
    };
  if (facts.counted > LOG_KEEP_NEWEST && facts.newer >= LOG_KEEP_NEWEST)
    return {
      decision: 'delete',
      reason: 'log-retention',
      detail: `${whose} ${written}: ${facts.newer} of the ${facts.counted} logs are newer, and Copilot CLI's own rule keeps only the ${LOG_KEEP_NEWEST} newest (applied only in a process that runs 60 s)`,
    };
  const among =
    facts.counted > LOG_KEEP_NEWEST
      ? `among the ${LOG_KEEP_NEWEST} newest of the ${facts.counted} logs`
      : `and ${facts.counted} logs in all, no more than the ${LOG_KEEP_NEWEST} it keeps`;
  return {
    decision: 'kept',
    reason: 'log-retained',
    detail: `${written}; within Copilot CLI's own rule: younger than seven days, ${among}`,
  };
}

/** A session folder with what the pass measured and what its in-use locks say. */
export interface SessionFacts extends SessionFolder {
  bytes: number | null;
  /** Each `inuse.<pid>.lock` with whether its pid is alive. */
  locks: Array<{ pid: number; liveness: Liveness }>;
}

/**
 * `session-state/<id>/`: conversation data, reported and never deleted. Copilot has its own way
 * to drop old sessions, `/session prune --older-than <days>`, which skips named ones.
 */
export function judgeSession(facts: SessionFacts): OwnerJudgement {
  return {
    decision: 'kept',
    reason: 'copilot-session',
    detail: `Copilot CLI session ${facts.id}${workspaceWords(facts.workspace)}, ${facts.bytes === null ? 'of an unknown size' : formatBytes(facts.bytes)}; ${useWords(facts.locks)}; conversation data, reported, never deleted: Copilot's own \`/session prune --older-than <days>\` drops unnamed sessions older than that (\`--include-named\` the named ones too)`,
  };
}

function workspaceWords(workspace: SessionFacts['workspace']): string {
  if (workspace === null) return ' (no workspace.yaml)';
  if ('problem' in workspace) return ` (${workspace.problem})`;
  const name =
    workspace.name === null
      ? 'unnamed'
      : workspace.userNamed
        ? `named ${JSON.stringify(workspace.name)} by the user (prune skips it)`
        : `titled ${JSON.stringify(workspace.name)}, not named by the user`;
  const where = workspace.cwd === null ? '' : `, working in ${workspace.cwd}`;
  const when = workspace.updatedAt === null ? '' : `, updated ${workspace.updatedAt}`;
  return ` (${name}${where}${when})`;
}

function useWords(locks: SessionFacts['locks']): string {
  const live = locks.filter((lock) => lock.liveness.state !== 'dead');
  if (live.length > 0)
    return `in use by ${live.map((lock) => (lock.liveness.state === 'alive' ? lock.liveness.process : `process ${lock.pid} (whether it is alive cannot be told)`)).join(', ')}`;
  if (locks.length > 0)
    return `not in use (its in-use locks name ${locks.map((lock) => `pid ${lock.pid}`).join(', ')}, which ${locks.length === 1 ? 'has' : 'have'} ended)`;
  return 'not in use';
}

/** A live session whose recorded `cwd` lies inside a worktree, or cannot be resolved (rule 25: a match). */
export interface SessionInside {
  id: string;
  /** The process its in-use lock names, in words: `process 4242 (copilot), which is alive`. */
  holder: string;
  cwd: string | null;
  /** Why its cwd could not be resolved, where it could not. */
  unresolved?: string;
  /** Why whether its lock's process is alive cannot be told, where it cannot (rule 19). */
  livenessUnknown?: string;
}

/**
 * The `copilot` set's keep condition: a worktree stays while a Copilot session with a live in-use
 * lock works in it; where a home of the worktree's owner cannot be read, its sessions may, so
 * the worktree is refused.
 */
export function judgeKeep(inside: readonly SessionInside[], unreadable: readonly string[]): OwnerJudgement | null {
  const known = inside.filter((session) => session.livenessUnknown === undefined);
  const [first] = known;
  if (first) {
    const where =
      first.unresolved === undefined
        ? `works in ${first.cwd} inside it`
        : `works in ${first.cwd ?? 'a folder its workspace.yaml does not name'}, which cannot be resolved (${first.unresolved}), so it counts as inside`;
    const more = known.length > 1 ? ` (and ${known.length - 1} more live session${known.length > 2 ? 's' : ''})` : '';
    return {
      decision: 'kept',
      reason: 'session-in-use',
      detail: `Copilot CLI session ${first.id} ${where}; its in-use lock names ${first.holder}${more}`,
    };
  }
  const [maybe] = inside;
  if (maybe)
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `Copilot CLI session ${maybe.id} may work in it: whether the process its in-use lock names is alive cannot be told (${maybe.livenessUnknown ?? ''})`,
    };
  const [problem] = unreadable;
  if (problem)
    return {
      decision: 'refused',
      reason: 'source-unreadable',
      detail: `a Copilot CLI session may work in it, but ${problem}`,
    };
  return null;
}
