import type { Verdict } from './types.js';

/**
 * Reason codes, each with the verdicts it comes with. The safety engine's are here, for every
 * provider; each shared engine and each provider has its own table (its `reasons.ts`), and
 * src/providers/registry.ts merges them into the one table docs/reasons.md lists (a test compares
 * them), so a code cannot be added, renamed or dropped without its documentation.
 *
 * A code whose owner judgement is `delete` ends as `deleted` or `would-delete`; any of them may end
 * as `failed` with `delete-failed` instead, so that pair is not repeated on every row. A `kept`
 * code a provider's re-check can give just before the delete also comes as `refused` (rule 23).
 */
export type ReasonTable = Readonly<Record<string, readonly Verdict[]>>;

/** A reason code: kebab-case, stable, in the table of the provider or engine that gives it. */
export type Reason = string;

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
