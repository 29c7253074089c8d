import path from 'node:path';
import type { OwnerJudgement } from '../../model/types.js';
import type { WorktreeEvidence } from '../../engines/git-worktree/evidence.js';
import type { NewestWrite } from '../../engines/git-worktree/idle.js';
import { judgeSetWorktree } from '../../engines/git-worktree/judge.js';
import type { NestedScan } from '../../engines/git-worktree/nested.js';
import { formatDuration } from '../../util/duration.js';

/**
 * Codex's scratch, judged. Pure: the evidence (what the locks, the install records, config.toml and
 * the thread database say) and the clock are passed in.
 */

/** A lock file of Codex's, as the plan saw it (/proc/locks), or why it could not be used. */
export type LockSeen = 'free' | 'held' | 'missing' | { unusable: string };

const refused = (reason: string, detail: string): OwnerJudgement => ({ decision: 'refused', reason, detail });

/** `.staging.lock` held: Codex is making a staging folder, or its own sweep runs. */
function stagingLockHeld(lock: string): OwnerJudgement {
  return refused(
    'staging-locked',
    `Codex holds ${lock}: it is making a staging folder or sweeping them; the next pass looks again`,
  );
}

/**
 * A current staging folder, `.staging/marketplace-<os>-XXXXXX`: Codex flocks its `.lock` for the
 * whole clone or upgrade, and makes both under `.staging.lock`. Dead when the `.lock` is free, or
 * was never made (its Codex died first); the removal takes both locks again and holds them.
 */
export function judgeCurrentStaging(
  folder: string,
  lock: LockSeen,
  stagingLock: LockSeen,
  lockFile: string,
): OwnerJudgement {
  const own = path.join(folder, '.lock');
  if (stagingLock === 'held') return stagingLockHeld(lockFile);
  if (stagingLock === 'missing')
    return refused(
      'staging-lock-unusable',
      `${lockFile}, which Codex holds while it makes a staging folder, is not there, so it cannot be held while this one goes`,
    );
  if (typeof stagingLock === 'object') return refused('staging-lock-unusable', stagingLock.unusable);
  if (lock === 'held')
    return refused('staging-locked', `${own} is held: a Codex process is cloning or upgrading a marketplace into it`);
  if (typeof lock === 'object') return refused('staging-lock-unusable', lock.unusable);
  return {
    decision: 'delete',
    reason: 'staging-dead',
    detail:
      lock === 'free'
        ? `a marketplace staging clone whose ${own} no process holds: the Codex that made it died before its own cleanup (a killed or timed-out upgrade)`
        : `a marketplace staging clone with no .lock: the Codex that made it died before it locked it (${lockFile} is free)`,
  };
}

/**
 * A staging folder of an older Codex (`marketplace-upgrade-*`, `marketplace-add-*`), which had no
 * lock: Codex's own sweep removes one `thresholdMs` after its last write; so does this provider, and
 * never while a process is inside (the safety engine) or Codex's sweep holds `.staging.lock`.
 */
export function judgeLegacyStaging(
  made: string,
  thresholdMs: number,
  newest: NewestWrite,
  stagingLock: LockSeen,
  lockFile: string,
  nowMs: number,
): OwnerJudgement {
  if (stagingLock === 'held') return stagingLockHeld(lockFile);
  if (typeof stagingLock === 'object') return refused('staging-lock-unusable', stagingLock.unusable);
  if (newest.error || newest.ms === null)
    return refused('unreadable', `its age cannot be told: ${newest.error ?? 'nothing in it could be read'}`);
  const age = nowMs - newest.ms;
  const threshold = formatDuration(thresholdMs);
  if (age < thresholdMs)
    return {
      decision: 'kept',
      reason: 'codex-threshold',
      detail: `a \`${made}\` staging folder last written ${roughly(Math.max(0, age))} ago: Codex itself keeps one for ${threshold}`,
    };
  return {
    decision: 'delete',
    reason: 'staging-expired',
    detail: `a \`${made}\` staging folder of an older Codex, last written ${roughly(age)} ago, past Codex's own ${threshold}`,
  };
}

/** An age as a person reads it: `42m`, `3.5h`, `2.1d`. */
const roughly = (ms: number): string =>
  ms >= 86_400_000
    ? `${(ms / 86_400_000).toFixed(1)}d`
    : ms >= 3_600_000
      ? `${(ms / 3_600_000).toFixed(1)}h`
      : `${Math.round(ms / 60_000)}m`;

/** `.tmp/plugins-clone-*`: a clone of the curated plugins, made under a flock on `.tmp/plugins.sync.lock`. */
export function judgePluginClone(syncLock: LockSeen, lockFile: string): OwnerJudgement {
  if (syncLock === 'held')
    return refused('staging-locked', `Codex holds ${lockFile}: it is syncing its curated plugins into this clone`);
  if (syncLock === 'missing')
    return refused(
      'staging-lock-unusable',
      `${lockFile}, under which Codex clones its curated plugins, is not there, so it cannot be held while this clone goes`,
    );
  if (typeof syncLock === 'object') return refused('staging-lock-unusable', syncLock.unusable);
  return {
    decision: 'delete',
    reason: 'plugin-clone-dead',
    detail: `a clone of Codex's curated plugins left by a sync that did not finish (${lockFile} is free)`,
  };
}

/** Which marketplace a backup holds, as its copy says, or why that cannot be told. */
export type BackupIdentity = { name: string; source: string | null; sourceType: string | null } | { unknown: string };

/** The live copy `.tmp/marketplaces/<name>/`, as found. */
export type LiveCopy =
  | { state: 'whole'; path: string; name: string; source: string | null }
  | { state: 'missing'; path: string }
  | { state: 'broken'; path: string; why: string };

export interface BackupEvidence {
  /** The backup folder, `.tmp/marketplaces/marketplace-backup-XXXXXX`. */
  path: string;
  /** The copy inside (`root`; `repo` in older versions), or null when none is there. */
  copy: string | null;
  identity: BackupIdentity;
  live: LiveCopy | null;
  /** config.toml's entry for the marketplace: null when it names none; unreadable when it cannot be read. */
  configured: { sourceType: string | null; source: string | null } | null | { unreadable: string };
  stagingLock: LockSeen;
  stagingLockFile: string;
  /** Staging folders whose `.lock` is held: an upgrade (or add) is between its renames, or about to be. */
  busyStaging: string[];
}

/**
 * A backup (`marketplace-backup-XXXXXX/root`) is what Codex moved the live copy of a marketplace to
 * before it renamed the new checkout into place; killed between the two renames, it is the only
 * copy, and no later Codex restores or deletes it. It goes only when the live copy of the same
 * marketplace is whole and configured, while no upgrade is under way.
 */
export function judgeBackup(evidence: BackupEvidence): OwnerJudgement {
  const { path: backup, copy } = evidence;
  if (evidence.stagingLock === 'held') return stagingLockHeld(evidence.stagingLockFile);
  if (typeof evidence.stagingLock === 'object') return refused('staging-lock-unusable', evidence.stagingLock.unusable);
  if (evidence.stagingLock === 'missing')
    return refused(
      'staging-lock-unusable',
      `${evidence.stagingLockFile}, under which Codex starts every upgrade, is not there, so no upgrade can be kept out while this backup goes`,
    );
  if (evidence.busyStaging.length > 0)
    return refused(
      'staging-locked',
      `a marketplace upgrade is under way (${evidence.busyStaging[0]}/.lock is held): this backup may be its copy between two renames`,
    );
  const onlyCopy = (why: string): OwnerJudgement => ({
    decision: 'unfinished',
    reason: 'only-copy',
    detail: `${why}; ${restoreAdvice(backup, copy, evidence.identity, evidence.live)}`,
  });
  if (copy === null)
    return onlyCopy(`${backup} holds no copy (no root/) that could be told apart from a half-made one`);
  const { identity } = evidence;
  if ('unknown' in identity)
    return onlyCopy(`which marketplace ${path.join(backup, copy)} is cannot be told (${identity.unknown})`);
  const { configured, live } = evidence;
  if (configured !== null && 'unreadable' in configured) return refused('source-unreadable', configured.unreadable);
  if (live === null || live.state === 'missing')
    return onlyCopy(`the live copy of marketplace ${identity.name} is gone: this backup is its only copy`);
  if (live.state === 'broken')
    return onlyCopy(
      `the live copy ${live.path} of marketplace ${identity.name} does not read as a marketplace (${live.why})`,
    );
  if (configured === null)
    return onlyCopy(
      `config.toml names no marketplace ${identity.name}, so its live copy cannot be told to be the one in use`,
    );
  const sources = [identity.source, live.source].filter((source): source is string => source !== null);
  const other = sources.find((source) => source !== configured.source);
  if (other !== undefined || (identity.sourceType !== null && identity.sourceType !== configured.sourceType))
    return onlyCopy(
      `its source ${other ?? identity.sourceType} is not the ${configured.source ?? 'unknown'} config.toml names for marketplace ${identity.name}`,
    );
  return {
    decision: 'delete',
    reason: 'backup-superseded',
    detail: `an old copy of marketplace ${identity.name} (${configured.source ?? 'source unknown'}) left by an upgrade that did not finish its cleanup; the live copy ${live.path} is whole and config.toml names it`,
  };
}

function restoreAdvice(backup: string, copy: string | null, identity: BackupIdentity, live: LiveCopy | null): string {
  const name = 'name' in identity ? identity.name : '<name>';
  const target = live?.path ?? path.join(path.dirname(backup), name);
  if (copy === null) return `look inside, then remove it yourself if nothing there is wanted`;
  return `to restore it, with no Codex running: \`mv ${path.join(backup, copy)} ${target} && rmdir ${backup}\` (Codex never restores it); or run \`codex plugin marketplace upgrade ${name}\`, which clones the live copy anew, after which this backup goes`;
}

/** What Codex's records say of the thread a worktree belongs to. */
export type ThreadEvidence =
  | { state: 'unreadable'; detail: string }
  /** No codex-thread.json and no thread row: a creation may be under way. */
  | { state: 'unbound' }
  | { state: 'known'; threads: ThreadFinding[] };

export interface ThreadFinding {
  id: string;
  /** How the worktree was tied to it: its owner, a row whose cwd is in it, or one whose cwd cannot be resolved. */
  via: 'codex-thread.json' | 'cwd' | 'cwd-unresolved';
  /** Why it was tied, where the tie is a doubt. */
  note?: string;
  /** The Codex homes whose databases hold its row, where one is not the home whose worktrees these are. */
  homes?: string[];
  /** Its row (merged over every home that has one), or null: no home has it (`codex delete`). */
  row: { archived: boolean; archivedAtMs: number | null; updatedAtMs: number | null } | null;
  writer: { state: 'live'; lock: string } | { state: 'free' } | { state: 'unknown'; detail: string };
}

export interface WorktreePolicy {
  /** The `codex` worktree set's idleAfter. */
  idleAfterMs: number;
  nowMs: number;
}

/** A source-of-truth time further ahead than this is no proof (rule 17). */
const CLOCK_MARGIN_MS = 5 * 60_000;

/**
 * An app worktree, `<root>/<4-hex>/<repo>`, judged with Codex's thread database: a thread with a
 * live writer keeps it whatever its age; one whose every thread is archived or gone is judged by
 * the `codex` set's rule at once (minAge still applies); otherwise by that rule with its idleAfter,
 * a thread's own recent activity counting as a write; one no record ties to a thread is only
 * reported (Codex writes codex-thread.json once the thread starts).
 */
export function judgeCodexWorktree(
  evidence: WorktreeEvidence,
  newest: NewestWrite,
  nested: NestedScan,
  thread: ThreadEvidence,
  policy: WorktreePolicy,
): OwnerJudgement {
  if (thread.state === 'unreadable') return refused('source-unreadable', thread.detail);
  if (thread.state === 'unbound')
    return {
      decision: 'kept',
      reason: 'thread-unknown',
      detail:
        'no codex-thread.json in its admin folder and no thread row names it: the app may still be making it; reported only',
    };
  const { threads } = thread;
  const live = threads.find((each) => each.writer.state === 'live');
  if (live && live.writer.state === 'live')
    return {
      decision: 'kept',
      reason: 'thread-live',
      detail: `Codex thread ${live.id} is live (its writer lock ${live.writer.lock} is held)`,
    };
  const unknown = threads.find((each) => each.writer.state === 'unknown');
  if (unknown && unknown.writer.state === 'unknown') return refused('writer-lock-unknown', unknown.writer.detail);
  for (const each of threads) {
    const at = each.row?.archivedAtMs ?? null;
    if (each.row?.archived && at !== null && at - policy.nowMs > CLOCK_MARGIN_MS)
      return refused(
        'clock-skew',
        `Codex thread ${each.id} says it was archived at ${new Date(at).toISOString()}, in the future: no proof`,
      );
  }
  const ended = threads.every((each) => each.row === null || each.row.archived);
  const said = threads.map(describeThread).join(', ');
  if (ended) {
    const judged = judgeSetWorktree(evidence, newest, { set: 'codex', idleAfterMs: 0, nowMs: policy.nowMs }, nested);
    if (judged.decision !== 'delete') return { ...judged, detail: `${said}; ${judged.detail}` };
    const gone = threads.every((each) => each.row === null);
    return {
      decision: 'delete',
      reason: gone ? 'thread-gone' : 'thread-archived',
      detail: `${said}, so the set's rule applies at once; ${judged.detail}`,
    };
  }
  const active = Math.max(...threads.map((each) => each.row?.updatedAtMs ?? 0));
  if (active > 0 && policy.nowMs - active <= policy.idleAfterMs)
    return {
      decision: 'kept',
      reason: 'not-idle',
      detail: `${said}: last active at ${new Date(active).toISOString()}, within idleAfter ${formatDuration(policy.idleAfterMs)} of set codex`,
    };
  const judged = judgeSetWorktree(
    evidence,
    newest,
    { set: 'codex', idleAfterMs: policy.idleAfterMs, nowMs: policy.nowMs },
    nested,
  );
  return { ...judged, detail: `${said}; ${judged.detail}` };
}

function describeThread(each: ThreadFinding): string {
  const state = each.row === null ? 'gone from every thread database' : each.row.archived ? 'archived' : 'not archived';
  const how = each.via === 'codex-thread.json' ? 'its owner' : each.via === 'cwd' ? 'working there' : each.note;
  const where = each.homes ? ` in ${each.homes.join(', ')}` : '';
  return `Codex thread ${each.id} (${how}) is ${state}${where}`;
}

/** Codex's older numbered log database (`logs_1.sqlite`) and its log and shared memory, as the plan saw them. */
export interface SupersededLogEvidence {
  database: string;
  /** `logs_<current>.sqlite` beside it, and whether it is there (a regular file). */
  current: string;
  currentThere: boolean;
  /** The newest write (mtime) of the three files, where they are. */
  newestWriteMs: number;
  /** The processes holding any of the three open or mapped, in words; null where none does. */
  heldBy: string | null;
}

/**
 * `logs_<n>.sqlite` below the number Codex writes now. Superseded, not shared: once the current one
 * is beside it, every Codex writes there, and Codex itself deletes every log row older than 10 days,
 * so an old one whose files were last written more than 10 days (plus minAge) ago holds only rows
 * Codex's own rule deletes. Not lossless: it rests on that rule. Pure.
 */
export function judgeSupersededLog(
  evidence: SupersededLogEvidence,
  retentionMs: number,
  minAgeMs: number,
  nowMs: number,
): OwnerJudgement {
  const { database } = evidence;
  if (!evidence.currentThere)
    return {
      decision: 'kept',
      reason: 'log-db-current',
      detail: `${path.basename(evidence.current)} is not beside ${database}: a Codex from before it may still write there`,
    };
  if (evidence.heldBy)
    return refused('in-use', `${evidence.heldBy}: a process still has the superseded log database open`);
  const deletable = evidence.newestWriteMs + retentionMs + minAgeMs;
  const written = new Date(evidence.newestWriteMs).toISOString();
  if (nowMs < deletable)
    return {
      decision: 'kept',
      reason: 'log-db-retained',
      detail: `${path.basename(evidence.current)} superseded it, but it was last written at ${written}: it may hold log rows Codex itself keeps for ${formatDuration(retentionMs)}; deleted once that and minAge have passed (${new Date(deletable).toISOString()})`,
    };
  return {
    decision: 'delete',
    reason: 'log-db-superseded',
    detail: `${path.basename(evidence.current)} superseded it (every Codex since writes there) and it was last written at ${written}: every row it holds is older than the ${formatDuration(retentionMs)} Codex itself keeps log rows, so Codex's own rule would delete them all`,
  };
}
