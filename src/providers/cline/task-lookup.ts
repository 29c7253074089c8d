import type { ClineHistory } from './history.js';

// Lookups in a history already read: pure, for the judge.

/** Where a task is said to exist: a record, else its conversation folder (Cline rebuilds history from it); undefined when nowhere. */
export function whereTaskExists(history: ClineHistory, id: string): string | undefined {
  const recorded = history.tasks.get(id);
  if (recorded !== undefined) return recorded;
  const folder = history.conversations.get(id);
  return folder === undefined ? undefined : `its conversation folder ${folder}`;
}
