import type { OwnerJudgement } from '../../model/types.js';
import { isInside } from '../../safety/inside.js';
import {
  describeRecord,
  judgeCarriers,
  judgeSessionFolder,
  unreadable,
  type ClaudeEvidence,
  type RunningClaude,
} from './judge.js';
import { SESSION_VARIABLE } from './layout.js';

// Claude Code's own retention (SYSTEMS.md 10.3), applied where Claude Code did not apply it. Pure:
// the entries, the period and the evidence are read before the judge runs.

/** The folders of a config folder that Claude Code's own sweep covers, and this rule applies. */
export type RetentionClass = 'session-env' | 'debug' | 'todos' | 'shell-snapshots' | 'tool-results';

/** One entry a class of the rule covers, as lstat saw it. */
export interface RetentionEntry {
  path: string;
  class: RetentionClass;
  type: 'file' | 'folder' | 'link';
  /** Its own mtime (a whole `tool-results/` folder: the newest of everything in it). */
  mtimeMs: number;
  /** The session it is of, where its name says. */
  sid: string | null;
  /** The project (`projects/<slug>/`) of a session's tool results. */
  slug: string | null;
}

/** The period the rule applies, and where it came from; or why it cannot be known. */
export type Period = { state: 'known'; days: number; from: string } | { state: 'unknowable'; why: string[] };

export interface RetentionInputs {
  period: Period;
  nowMs: number;
  /** The config folder the entry is in, as its registry was read. */
  config: string;
  /** Whether a running Claude Code's config folder is this one: true, false, or null where it cannot be told. */
  sameConfig: (running: RunningClaude) => boolean | null;
  evidence: ClaudeEvidence;
}

const DAY_MS = 86_400_000;

/** What each class is, in Claude Code's own words for its sweep. */
const RULES: Record<RetentionClass, string> = {
  'session-env':
    "Claude Code's own sweep removes a session-env/<session>/ folder whose mtime is past cleanupPeriodDays",
  debug: "Claude Code's own sweep removes each debug/* log but latest whose mtime is past cleanupPeriodDays",
  todos: "Claude Code's own sweep removes each todos/* file whose mtime is past cleanupPeriodDays",
  'shell-snapshots': "Claude Code's own sweep removes each shell-snapshots/*.sh whose mtime is past cleanupPeriodDays",
  'tool-results':
    "Claude Code's own sweep removes each file of a session's tool-results/ whose mtime is past cleanupPeriodDays, and the folders left empty",
};

/**
 * The owner's judgement of one entry, or null where it is within the period (no item: nothing of
 * it is dead by the owner's rule). Past the period: refused `settings-unknowable` while a settings
 * source cannot be read (Claude Code then skips its sweep too); else kept while a live session has
 * it, and dead otherwise. A shell snapshot carries no session id, and a live session sources its
 * own at every Bash call: every snapshot of a config folder stays while any Claude Code of that
 * folder runs. `minAge`, open files and the entry's kind are the safety engine's to judge.
 */
export function judgeRetention(entry: RetentionEntry, inputs: RetentionInputs): OwnerJudgement | null {
  const { period, nowMs } = inputs;
  if (nowMs - entry.mtimeMs <= yardstickDays(period) * DAY_MS) return null;
  const age = `last written ${new Date(entry.mtimeMs).toISOString()}`;
  if (period.state === 'unknowable') {
    const more = period.why.length > 1 ? ` (and ${period.why.length - 1} more)` : '';
    return {
      decision: 'refused',
      reason: 'settings-unknowable',
      detail: `${age}, but Claude Code's retention period cannot be known, so none of its retention is applied (as Claude Code itself skips its sweep): ${period.why[0]}${more}`,
    };
  }
  const rule = `${RULES[entry.class]} (${period.days} days: ${period.from}), ${age}`;
  const live = entry.class === 'shell-snapshots' ? snapshotInUse(inputs) : sessionInUse(entry, inputs.evidence);
  if (live) return { ...live, detail: `${rule}; but ${live.detail}` };
  return {
    decision: 'delete',
    reason: 'retention-expired',
    detail: `${rule}, and Claude Code has not removed it; ${endedNote(entry)}`,
  };
}

/** Claude Code's own period when no settings source names `cleanupPeriodDays` (2.1.332: `V7=30`). */
export const DEFAULT_PERIOD_DAYS = 30;

/**
 * The age past which an entry is an item: the period, or while it cannot be known the default
 * period (the entries then refused are past at least that).
 */
export const yardstickDays = (period: Period): number => (period.state === 'known' ? period.days : DEFAULT_PERIOD_DAYS);

function endedNote(entry: RetentionEntry): string {
  if (entry.class === 'shell-snapshots') return 'no Claude Code of its config folder runs';
  if (entry.class === 'tool-results')
    return `the transcript ${entry.sid}.jsonl of its session is gone, and no running Claude Code has the session or its project`;
  if (entry.sid === null) return 'its name names no session';
  return `no live session has ${entry.sid}: no registry record names it, no process carries its ${SESSION_VARIABLE}`;
}

/**
 * Whether a live session keeps an entry of its session: a live registry record with that session
 * id, a process carrying it, or (for a session's tool results) a Claude Code at work in its
 * project, as for task output; where any of those cannot be told, refused.
 */
function sessionInUse(entry: RetentionEntry, evidence: ClaudeEvidence): OwnerJudgement | null {
  const failed = unreadable(evidence);
  if (failed) return failed;
  const sid = entry.sid;
  if (entry.class === 'tool-results' && entry.slug !== null && sid !== null) {
    const judged = judgeSessionFolder({ path: entry.path, slug: entry.slug, sid }, evidence);
    return judged.decision === 'delete' ? null : judged;
  }
  if (sid === null) return null;
  const live = evidence.records.find((record) => record.sessionId === sid && record.life.state !== 'dead');
  if (live?.life.state === 'live')
    return {
      decision: 'kept',
      reason: 'session-live',
      detail: `Claude Code is running session ${sid}: ${describeRecord(live)}`,
    };
  const carried = judgeCarriers(sid, evidence);
  if (carried) return carried;
  if (live?.life.state === 'unknown')
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether the Claude Code of ${describeRecord(live)} runs cannot be told: ${live.life.why}`,
    };
  const unseen = evidence.unseen[0];
  if (unseen)
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether ${unseen.who} carries ${SESSION_VARIABLE}=${sid} is unknown: ${unseen.why}`,
    };
  return null;
}

/** A shell snapshot stays while any Claude Code of its config folder runs (its record, or the process). */
function snapshotInUse(inputs: RetentionInputs): OwnerJudgement | null {
  const { evidence, config } = inputs;
  const failed = unreadable(evidence);
  if (failed) return failed;
  const records = evidence.records.filter((record) => isInside(config, record.file) && record.life.state !== 'dead');
  const live = records.find((record) => record.life.state === 'live');
  if (live)
    return {
      decision: 'kept',
      reason: 'session-live',
      detail: `a Claude Code of ${config} runs (${describeRecord(live)}), and a shell snapshot names no session: any may be the one it sources at its next Bash call`,
    };
  const running = evidence.running.find((each) => inputs.sameConfig(each) !== false);
  if (running)
    return {
      decision: 'kept',
      reason: 'session-live',
      detail: `Claude Code process ${running.named} runs with ${config} as its config folder${inputs.sameConfig(running) === null ? ' (or one that cannot be told apart from it)' : ''}, and a shell snapshot names no session: any may be the one it sources at its next Bash call`,
    };
  const unknown = records.find((record) => record.life.state === 'unknown');
  if (unknown?.life.state === 'unknown')
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether the Claude Code of ${describeRecord(unknown)} runs cannot be told, and a shell snapshot names no session: ${unknown.life.why}`,
    };
  return null;
}
