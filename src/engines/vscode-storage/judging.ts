import path from 'node:path';
import type { Reason } from '../../model/types.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { Settlement } from './settle.js';
import type { ShadowRepoFacts } from './shadow-repo.js';

export const refused = (reason: Reason, detail: string): OwnerJudgement => ({ decision: 'refused', reason, detail });

/** The first `max` entries, and how many more. */
export function list(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** The identity an extension gives each of its shadow repositories. */
export interface ShadowSignature {
  name: string;
  emails: readonly string[];
  /** The extension, for the details. */
  owner: string;
}

/**
 * Why a folder is not (or cannot be shown to be) one of the extension's shadow repositories: a
 * `.git` that is no folder, anything beside it, a config that cannot be read, another identity, or
 * no absolute `core.worktree`. Null when it is one.
 */
export function identityProblem(facts: ShadowRepoFacts, signature: ShadowSignature): OwnerJudgement | null {
  if (!facts.gitdirIsFolder) {
    return refused(
      'signature-mismatch',
      `${facts.gitdir} is not a folder, so this is not a ${signature.owner} checkpoint repository`,
    );
  }
  if (facts.strayEntries.length > 0) {
    return refused(
      'signature-mismatch',
      `${facts.folder} holds ${list(facts.strayEntries, 3)} beside .git; ${signature.owner} keeps nothing else there`,
    );
  }
  if (facts.unreadableContent) {
    return refused('unreadable-content', `git could not read all of it: ${facts.unreadableContent}`);
  }
  if (facts.configProblem || !facts.config) {
    return refused('evidence-unreadable', `its config cannot be read: ${facts.configProblem ?? 'unknown'}`);
  }
  const { userName, userEmail, worktree } = facts.config;
  if (userName !== signature.name || userEmail === null || !signature.emails.includes(userEmail)) {
    return refused(
      'signature-mismatch',
      `its identity is ${userName ?? '(no user.name)'} <${userEmail ?? 'no user.email'}>, not ${signature.owner}'s ${signature.name} <${signature.emails.join('|')}>`,
    );
  }
  if (worktree === null) {
    // Roo unsets it for a moment while it deletes a branch: not proof of anything.
    return refused('worktree-unrecorded', `${path.join(facts.gitdir, 'config')} records no core.worktree`);
  }
  if (worktree.includes('\ufffd') || LONE_SURROGATE.test(worktree)) {
    // Bytes that are not UTF-8 cannot be named exactly, so neither its hash nor its workspace can be checked.
    return refused('evidence-unreadable', `its core.worktree ${worktree} is not valid UTF-8`);
  }
  if (!path.isAbsolute(worktree)) {
    return refused(
      'signature-mismatch',
      `its core.worktree ${worktree} is not absolute; ${signature.owner} records an absolute path`,
    );
  }
  return null;
}

/** A byte of a name that is not UTF-8, as the names codec and the native decoder render it. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** The newest commit, for a person deciding on a repository. */
export function lastCommitText(facts: ShadowRepoFacts): string {
  const commits = facts.commits;
  if (!commits || commits.newestMs === null) return 'no commit';
  return `${commits.count} commit${commits.count === 1 ? '' : 's'}, the last on ${new Date(commits.newestMs).toISOString()}`;
}

/** A history that did not read the same twice, or whose sources are dated in the future, proves nothing. */
export function settlementBlocker(settlement: Settlement): OwnerJudgement | null {
  if (settlement.state === 'clock-skew') return refused('clock-skew', settlement.detail);
  if (settlement.state === 'changed') return refused('history-unsettled', settlement.detail);
  return null;
}
