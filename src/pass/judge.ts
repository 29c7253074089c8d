import { formatBytes } from '../util/format.js';
import { nameProcesses } from '../safety/processes/process-description.js';
import { formatDuration } from '../util/duration.js';
import type { Reason } from '../model/types.js';
import { onOneFile, type Candidate } from '../provider-api/candidate.js';
import type { Liveness, Verdict } from '../model/types.js';
import type { SafetyFacts } from './inspect.js';

export interface SafetyPolicy {
  minAgeMs: number;
  processCheck: 'auto' | 'required' | 'off';
  mode: 'delete' | 'report-only';
}

export interface Judgement {
  /** `delete` is a verdict the executor still has to carry out (it becomes deleted or failed). */
  verdict: Exclude<Verdict, 'deleted' | 'failed'> | 'delete';
  reason: Reason;
  detail: string;
}

/**
 * The one place a candidate gets its verdict. Pure: everything it looks at is passed in, `now`
 * included. Signs of life come first, then the owner's record, then the checks that guard the
 * delete itself.
 */
export function judge(
  candidate: Candidate,
  facts: SafetyFacts | null,
  liveness: Liveness,
  policy: SafetyPolicy,
  nowMs: number,
): Judgement {
  if (facts?.exists) {
    const life = signsOfLife(candidate, facts, liveness, policy, nowMs);
    if (life) return life;
  }
  const owner = candidate.judgement;
  if (owner.decision !== 'delete') return { verdict: owner.decision, reason: owner.reason, detail: owner.detail };

  const blocked = facts ? deleteBlocker(candidate, facts, liveness, policy) : null;
  if (blocked) return blocked;
  if (policy.mode === 'report-only') return { verdict: 'would-delete', reason: owner.reason, detail: owner.detail };
  return { verdict: 'delete', reason: owner.reason, detail: owner.detail };
}

function signsOfLife(
  candidate: Candidate,
  facts: SafetyFacts,
  liveness: Liveness,
  policy: SafetyPolicy,
  nowMs: number,
): Judgement | null {
  const watching = policy.processCheck !== 'off' && liveness.visible;
  if (watching && facts.processesInside.length > 0) {
    const all = facts.processesInside;
    const who = facts.holders
      ? nameProcesses(facts.holders, all.length)
      : `process ${all.slice(0, 5).join(', ')}${all.length > 5 ? ` and ${all.length - 5} more` : ''}`;
    const one = all.length === 1;
    const holds = onOneFile(candidate.removal)
      ? `${one ? 'has' : 'have'} it open or mapped`
      : `${one ? 'has its' : 'have their'} working directory, root, an open file or a mapping inside`;
    // The owner may know more of its holder (whose session a runaway shell outlived): said after.
    const known = candidate.judgement.reason === 'in-use' ? `; ${candidate.judgement.detail}` : '';
    return {
      verdict: 'refused',
      reason: 'in-use',
      detail: `${who} ${holds}; only stopping ${one ? 'it' : 'them'} frees its ${formatBytes(facts.bytes)}${known}`,
    };
  }
  const git = facts.gitInRepository;
  if (watching && git && git.pids.length > 0) {
    const one = git.pids.length === 1;
    return {
      verdict: 'refused',
      reason: 'in-use',
      detail: `${nameProcesses(git.holders, git.pids.length)} ${one ? 'is' : 'are'} git at work in the repository ${git.repository} (a gc, repack or add may still write or rename it); its ${formatBytes(facts.bytes)} are freed once ${one ? 'it ends' : 'they end'}`,
    };
  }
  const mounted = facts.mountedElsewhere ?? [];
  if (watching && mounted.length > 0) {
    return {
      verdict: 'refused',
      reason: 'in-use',
      detail: `it can be entered at any time through a mount: ${mounted.slice(0, 3).join('; ')}`,
    };
  }
  // An interrupted delete refreshed the folders of a quarantine, not its files: age it by those; and
  // a kept repository whose garbage a pass unlinked, by its files too (never one that may be deleted).
  const byFiles =
    candidate.kind === 'quarantine' || (candidate.agedByFiles === true && candidate.judgement.decision === 'kept');
  const newest = byFiles ? facts.newestFileWriteMs : facts.newestWriteMs;
  if (newest !== null && nowMs - newest < policy.minAgeMs) {
    return {
      verdict: 'refused',
      reason: 'too-recent',
      detail: `newest write inside is from ${new Date(newest).toISOString()}, younger than minAge ${formatDuration(policy.minAgeMs)}`,
    };
  }
  return null;
}

function deleteBlocker(
  candidate: Candidate,
  facts: SafetyFacts,
  liveness: Liveness,
  policy: SafetyPolicy,
): Judgement | null {
  const refuse = (reason: Reason, detail: string): Judgement => ({ verdict: 'refused', reason, detail });
  const where = candidate.path ?? '(no folder)';
  if (!facts.exists)
    return refuse(
      'changed-during-inspection',
      facts.vanished
        ? `${where} is listed in its folder but cannot be looked at`
        : `${where} disappeared while the pass looked at it`,
    );
  if (candidate.kind === 'git-garbage' || onOneFile(candidate.removal)) {
    // One of git's temporary files goes only as a single file.
    const wrongRemoval = candidate.kind === 'git-garbage' && candidate.removal?.type !== 'file';
    if (wrongRemoval || !facts.isRegularFile)
      return refuse(
        'symlink',
        `${where} is not a regular file (a symlink, a folder or another kind of entry); of single files, only regular files are ever deleted`,
      );
  } else if (!facts.isRealDirectory)
    return refuse(
      'symlink',
      `${where} is not a real directory (a symlink or a file); only its own folders are ever deleted`,
    );
  // A link in the path also leaves the target outside the root canonically; name the link.
  if (facts.symlinkInPath)
    return refuse('symlink-in-path', `a component between ${candidate.root ?? 'the root'} and ${where} is a symlink`);
  if (!facts.contained)
    return refuse('outside-root', `${where} is not inside ${candidate.root ?? 'its provider root'} by canonical path`);
  if (!facts.sameFilesystemAsParent)
    return refuse('mount-point', `${where} is a mount point (another filesystem than its parent)`);
  if (facts.mountInside) return refuse('mount-inside', `${where} has another filesystem mounted below it`);
  if (facts.vanished)
    return refuse(
      'changed-during-inspection',
      `${facts.vanished} was listed inside ${where} but gone before it could be looked at, on two walks in a row; its age and size are unknown`,
    );
  if (facts.walkError)
    return refuse('unreadable', `part of ${where} cannot be read, so its age and size are unknown: ${facts.walkError}`);
  if (facts.foreign)
    return refuse(
      'foreign-owner',
      `${where} cannot be deleted as one owner, so nothing in it is touched: ${facts.foreign}`,
    );
  if (policy.processCheck !== 'off') {
    if (!liveness.visible)
      return refuse(
        'liveness-unknown',
        `live processes cannot be seen (${liveness.blindBecause ?? 'unknown'}): ${liveness.why ?? 'unknown'}`,
      );
    if (policy.processCheck === 'required' && liveness.uninspectable > 0) {
      return refuse(
        'liveness-unknown',
        `processCheck is required and ${liveness.uninspectable} processes could not be inspected`,
      );
    }
  }
  return null;
}
