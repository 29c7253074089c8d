/**
 * Every reason code an item of the report can carry, each with the verdicts it comes with. The
 * reason table of docs/reasons.md lists exactly these (a test compares them), so a code cannot be
 * added, renamed or dropped without its documentation.
 *
 * A code whose owner judgement is `delete` ends as `deleted` or `would-delete`; any of them may end
 * as `failed` with `delete-failed` instead, so that pair is not repeated on every row. A `kept`
 * code a provider's re-check can give just before the delete also comes as `refused` (rule 23).
 */
const DELETES = ['deleted', 'would-delete'] as const;

export const REASONS = {
  // The safety engine, for every provider.
  'in-use': ['refused'],
  'too-recent': ['refused'],
  'liveness-unknown': ['refused'],
  symlink: ['refused'],
  'symlink-in-path': ['refused'],
  'outside-root': ['refused'],
  'mount-point': ['refused'],
  'mount-inside': ['refused'],
  unreadable: ['refused'],
  'unreadable-content': ['refused'],
  'changed-during-inspection': ['refused'],
  'foreign-owner': ['refused'],
  'clock-skew': ['refused'],
  'source-unreadable': ['refused'],
  'quarantine-leftover': DELETES,
  'delete-failed': ['failed'],
  // watchfire
  'project-deleted': DELETES,
  'transcript-exported': DELETES,
  'failed-start': DELETES,
  'session-running': ['kept'],
  'session-interrupted': ['unfinished'],
  'transcript-not-exported': ['unfinished'],
  'unrecognized-name': ['refused'],
  'home-unreadable': ['refused'],
  // kilo
  'worktree-removed': DELETES,
  'kilo-delete-leftover': DELETES,
  'worktree-present': ['kept', 'refused'],
  'legacy-project-repo': ['kept', 'refused'],
  'unmanaged-worktree': ['refused'],
  'owner-unknown': ['refused'],
  'owner-unreadable': ['refused'],
  'worktree-still-registered': ['refused'],
  'agent-manager-lists-worktree': ['refused'],
  'agent-manager-unreadable': ['refused'],
  'worktree-hash-mismatch': ['refused'],
  'worktree-unrecorded': ['refused'],
  'worktree-unreadable': ['refused'],
  'kilo-lock-held': ['refused'],
  'being-seeded': ['refused'],
  'lock-location-unknown': ['refused'],
  'evidence-unreadable': ['refused'],
  // owl and worktrees
  'job-done': DELETES,
  'job-cancelled': DELETES,
  'job-vanished': DELETES,
  'stale-admin-entry': DELETES,
  'orphan-worktree-config': DELETES,
  'idle-clean': DELETES,
  'job-open': ['kept'],
  'job-state-unknown': ['kept'],
  'not-idle': ['kept', 'refused'],
  'git-locked': ['kept', 'refused'],
  'uncommitted-changes': ['unfinished'],
  'unique-commits': ['unfinished'],
  'operation-in-progress': ['unfinished'],
  'nested-repository': ['unfinished'],
  'review-overdue': ['unfinished'],
  'active-without-daemon': ['unfinished'],
  'has-submodule': ['refused'],
  'owner-unavailable': ['refused'],
  'admin-entry-missing': ['refused'],
  'admin-mismatch': ['refused'],
  'not-a-worktree': ['refused'],
  'git-failed': ['refused'],
  // cline and roo
  'task-deleted': DELETES,
  'task-in-history': ['kept'],
  'alive-legacy-format': ['unfinished'],
  'unknown-commits': ['unfinished'],
  'orphan-task-folder': ['unfinished'],
  'unexpected-workspace-repo': ['unfinished'],
  'signature-mismatch': ['refused'],
  'git-lock-file': ['refused'],
  'cline-lock-held': ['refused'],
  'history-unsettled': ['refused'],
  'custom-path-unmounted': ['refused'],
} as const satisfies Record<string, readonly string[]>;

export type Reason = keyof typeof REASONS;

export const REASON_CODES = Object.keys(REASONS) as Reason[];
