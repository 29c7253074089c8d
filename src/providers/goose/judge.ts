import type { OwnerJudgement } from '../../model/types.js';
import { formatDuration } from '../../util/duration.js';
import { formatBytes } from '../../util/format.js';
import { OWNER_RETENTION_MS } from './layout.js';

// Goose's logs, judged by Goose's own rule (SYSTEMS.md 10.5). Pure: everything is passed in.

/** A process that holds a log, as the refusal names it. */
export interface Writer {
  pid: number;
  /** `goosed`, `goose`, or null for a process of another program. */
  program: 'goosed' | 'goose' | null;
  /** As a person reads it: `4242 (goosed agent, run by ana)`. */
  named: string;
}

/** What the provider read of one date folder `logs/<component>/<YYYY-MM-DD>/`. */
export interface DateFolderFacts {
  /** The folder's own mtime: what Goose's rule goes by. */
  folderMtimeMs: number;
  /** The newest write of the folder and anything in it, or why it cannot be known. */
  newestWrite: { ms: number } | { problem: string };
  bytes: number;
  /** Entries inside it (files and folders). */
  entries: number;
  /** The processes that hold anything in it open, or null where processes cannot be seen. */
  writers: Writer[] | null;
}

/**
 * A date folder. Goose removes it once its own mtime is 14 days old (`cleanup_old_logs`, at every
 * logger setup, which never runs on a machine where Goose is no longer started). This pass goes
 * further only in caution: the newest write anywhere in it must be older than 14 days plus
 * `minAge`, and nothing may hold it open (a goosed that started that day writes into it still).
 */
export function judgeDateFolder(facts: DateFolderFacts, nowMs: number, minAgeMs: number): OwnerJudgement {
  const held = heldBy(facts.writers, 'its log');
  if (held) return held;
  const ownerSince = nowMs - OWNER_RETENTION_MS;
  const folderDate = new Date(facts.folderMtimeMs).toISOString();
  const what = `${entries(facts.entries)}, ${formatBytes(facts.bytes)}`;
  if (facts.folderMtimeMs >= ownerSince)
    return {
      decision: 'kept',
      reason: 'goose-log-retained',
      detail: `Goose's own rule keeps it: the folder's mtime ${folderDate} is younger than 14 days (${what})`,
    };
  if ('problem' in facts.newestWrite)
    return { decision: 'refused', reason: 'unreadable', detail: facts.newestWrite.problem };
  const newest = facts.newestWrite.ms;
  if (newest >= ownerSince - minAgeMs)
    return {
      decision: 'refused',
      reason: 'too-recent',
      detail: `Goose's own rule would remove it (the folder's mtime ${folderDate} is older than 14 days), but a file in it was written at ${new Date(newest).toISOString()}, younger than 14 days plus minAge ${formatDuration(minAgeMs)}: a Goose started that day may still write there`,
    };
  return {
    decision: 'delete',
    reason: 'goose-log-expired',
    detail: `past Goose's own 14-day log retention, which only runs when Goose starts: the folder's mtime is ${folderDate}, its newest write ${new Date(newest).toISOString()}, older than 14 days plus minAge ${formatDuration(minAgeMs)}; no process holds it (${what})`,
  };
}

/** What the provider read of one log file directly in `logs/<component>/` (the older, flat layout). */
export interface FlatFileFacts {
  bytes: number;
  mtimeMs: number;
  /** The program its name says wrote it (`…-goosed.log`), where it says. */
  namedWriter: string | null;
  writers: Writer[] | null;
}

/** A flat log file: Goose never removes one, so neither does this pass; reported with its size and writer. */
export function judgeFlatFile(facts: FlatFileFacts): OwnerJudgement {
  const held = heldBy(facts.writers, 'this file');
  if (held) return held;
  const writer = facts.writers === null ? 'whether a process holds it cannot be seen' : 'no process holds it open';
  const named = facts.namedWriter ? `written by ${facts.namedWriter}, ` : '';
  return {
    decision: 'kept',
    reason: 'goose-log-reported',
    detail: `a log file in Goose's older flat layout (${named}${formatBytes(facts.bytes)}, last written ${new Date(facts.mtimeMs).toISOString()}; ${writer}): Goose's own rule never removes plain files there, so it is reported, never deleted; remove it by hand once it is not needed`,
  };
}

/** An entry of `logs/<component>/` that is neither a date folder nor a file (a folder of another name). */
export function judgeOtherEntry(what: string): OwnerJudgement {
  return {
    decision: 'kept',
    reason: 'goose-log-reported',
    detail: `${what}, not one of Goose's date folders: reported, never deleted`,
  };
}

/** Goose's sessions folder: conversation data, reported with its size. */
export function judgeSessions(facts: { bytes: number; entries: number }): OwnerJudgement {
  return {
    decision: 'kept',
    reason: 'goose-sessions',
    detail: `Goose's sessions (${entries(facts.entries)}, ${formatBytes(facts.bytes)}): conversation data, reported, never deleted (\`goose session remove\` drops a session)`,
  };
}

/**
 * A log some process holds open: `in-use` whatever its size. goosed opens its log once and writes
 * it for its whole life (`Rotation::NEVER`), so only a restart ends the file.
 */
function heldBy(writers: Writer[] | null, what: string): OwnerJudgement | null {
  if (!writers || writers.length === 0) return null;
  const names = writers.map((writer) => writer.named).join(', ');
  const goosed = writers.some((writer) => writer.program === 'goosed');
  const advice = goosed
    ? `goosed writes ${what} for as long as it runs (Goose never rotates it): restart goosed (quit and reopen Goose) so it starts a new log, and the next pass judges this one again`
    : `it is freed only once ${writers.length === 1 ? 'that process ends' : 'those processes end'}`;
  return {
    decision: 'refused',
    reason: 'in-use',
    detail: `held open by process${writers.length === 1 ? '' : 'es'} ${names}; ${advice}`,
  };
}

const entries = (count: number): string => `${count} entr${count === 1 ? 'y' : 'ies'}`;
