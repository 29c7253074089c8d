import type { ReasonTable, Verdict } from './types.js';

export const DELETES = ['deleted', 'would-delete'] as const;

/** The safety engine's codes, and those every provider may give. */
export const SAFETY_REASONS = {
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
  'evidence-unreadable': ['refused'],
  'owner-unavailable': ['refused'],
  'git-failed': ['refused'],
  'quarantine-leftover': DELETES,
  'delete-failed': ['failed'],
} as const satisfies ReasonTable;

/**
 * One table of several. A code two tables both give must come with the same verdicts in each;
 * anything else is a mistake of the code, thrown where the tables are put together.
 */
export function mergeReasonTables(tables: readonly ReasonTable[]): ReasonTable {
  const merged: Record<string, readonly Verdict[]> = {};
  for (const table of tables)
    for (const [code, verdicts] of Object.entries(table)) {
      const earlier = merged[code];
      if (earlier && [...earlier].sort().join() !== [...verdicts].sort().join())
        throw new Error(
          `reason ${code} comes with ${earlier.join('/')} in one table and ${verdicts.join('/')} in another`,
        );
      merged[code] = verdicts;
    }
  return merged;
}
