import type { OwnerJudgement } from '../../model/types.js';
import { formatDuration } from '../../util/duration.js';

// opencode's own retention (SYSTEMS.md 10.1), applied where opencode fails to: pure, every input given.

/** An older opencode's per-process log: its UTC start time without colons. */
export const TIMESTAMPED_LOG = /^\d{4}-\d{2}-\d{2}T\d{6}\.log$/;
/** How many per-process logs opencode's own cleanup keeps (`Log.init` → `cleanup`: all but the last 10). */
const LOGS_KEPT = 10;
/** A truncated tool call's full output (`ToolOutputStore.write`: `tool_<ascending id>`). */
export const TOOL_OUTPUT = /^tool_/;
/** opencode's own retention of tool outputs (`ToolOutputStore.RETENTION`). */
const TOOL_OUTPUT_RETENTION_MS = 7 * 24 * 3_600_000;
/** `storage/session_diff/<sessionID>.json`; opencode's session ids are `ses_` and an ascending id. */
export const SESSION_DIFF = /^(ses_[0-9A-Za-z]+)\.json$/;

/**
 * The name that decides which per-process logs are beyond the ten newest: the tenth newest regular
 * file's. A log whose name sorts before it was started earlier (the name is its start time); null
 * while there are ten or fewer, when none is.
 */
export function tenthNewestLog(regularNames: readonly string[]): string | null {
  const newestFirst = regularNames.filter((name) => TIMESTAMPED_LOG.test(name)).sort((a, b) => (a < b ? 1 : -1));
  return newestFirst.length > LOGS_KEPT ? (newestFirst[LOGS_KEPT - 1] as string) : null;
}

export function judgeTimestampedLog(name: string, tenthNewest: string | null, newest: string): OwnerJudgement {
  if (tenthNewest === null || name >= tenthNewest)
    return {
      decision: 'kept',
      reason: 'opencode-log-reported',
      detail: `one of the ${LOGS_KEPT} newest per-process logs (by the start time in its name), which opencode's own cleanup keeps`,
    };
  return {
    decision: 'delete',
    reason: 'opencode-log-rotated',
    detail: `a per-process log of an older opencode, started ${startOf(name)}, not among the ${LOGS_KEPT} newest by name (the newest is ${newest}): opencode's own cleanup keeps only the ${LOGS_KEPT} newest, and since it logs to opencode.log instead nothing removes the rest`,
  };
}

/** `2025-01-31T120000.log` → `2025-01-31T12:00:00Z`. */
function startOf(name: string): string {
  const [date, time] = name.slice(0, -'.log'.length).split('T') as [string, string];
  return `${date}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}Z`;
}

/**
 * A tool output goes once its last write is older than opencode's own seven days and `minAge`
 * alike: opencode deletes it itself at that age, hourly, but only while one of its processes runs.
 * The judgement of one to keep says when it may go.
 */
export function judgeToolOutput(mtimeMs: number, nowMs: number, minAgeMs: number): OwnerJudgement {
  const keepMs = Math.max(TOOL_OUTPUT_RETENTION_MS, minAgeMs);
  const written = new Date(mtimeMs).toISOString();
  const past =
    keepMs === TOOL_OUTPUT_RETENTION_MS ? "opencode's own 7-day retention" : `minAge ${formatDuration(keepMs)}`;
  if (nowMs - mtimeMs > keepMs)
    return {
      decision: 'delete',
      reason: 'opencode-tool-output-expired',
      detail: `the full output of a truncated tool call, last written ${written}, older than ${past}: opencode's own cleanup would have deleted it, and has not`,
    };
  return {
    decision: 'kept',
    reason: 'opencode-tool-output-retained',
    detail: `written ${written}, within ${past}: it may go after ${new Date(mtimeMs + keepMs).toISOString()}`,
  };
}

/** What the pass knows of a session diff's session. */
export type SessionKnown =
  | { state: 'live'; where: string }
  | { state: 'gone'; databases: readonly string[] }
  | { state: 'unknown'; why: string };

export function judgeSessionDiff(sessionId: string, known: SessionKnown): OwnerJudgement {
  if (known.state === 'live')
    return {
      decision: 'kept',
      reason: 'opencode-diff-live',
      detail: `the file diffs of session ${sessionId}, which ${known.where} still has`,
    };
  if (known.state === 'unknown')
    return {
      decision: 'refused',
      reason: 'owner-unknown',
      detail: `the file diffs of session ${sessionId}, which no database this pass read has; whether the session still exists cannot be told: ${known.why}`,
    };
  return {
    decision: 'delete',
    reason: 'opencode-diff-orphaned',
    detail: `the file diffs of session ${sessionId}, which no database has (${known.databases.join(', ')}) and no legacy storage/session file names: the session was deleted, and no code of opencode's removes its diff`,
  };
}
