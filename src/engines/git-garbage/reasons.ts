import type { Reason, ReasonTable } from '../../model/types.js';

/** What the git garbage engine gives, for every checkpoint provider that deletes git's temporary files with it. */
export const GIT_GARBAGE_REASONS = {
  'git-temporary': ['deleted', 'would-delete'],
} as const satisfies ReasonTable;

/** Why none of a repository's garbage may go now: every file of it is refused with this. */
export interface GarbageRefusal {
  decision: 'refused';
  reason: Reason;
  detail: string;
}
