import path from 'node:path';
import type { Candidate } from '../../../src/provider-api/candidate.js';
import type { Provider } from '../../../src/provider-api/provider.js';

export interface RaceTarget {
  path: string;
  /**
   * Runs once the plan is judged and before anything is deleted (the pass's `onPlanned`): the
   * window between plan and delete, where a folder can be swapped or a process can start inside.
   */
  meddle?: () => Promise<void> | void;
}

/** A real Provider whose candidates are the given folders, each proven dead by its owner's record. */
export function raceProvider(root: string, targets: RaceTarget[]): Provider {
  return {
    name: 'watchfire',
    async gather() {
      const candidates: Candidate[] = targets.map((target) => ({
        provider: 'watchfire',
        kind: 'session-home',
        path: target.path,
        root,
        judgement: {
          decision: 'delete',
          reason: 'project-deleted',
          detail: `${path.basename(target.path)} is dead by the test's record`,
        },
      }));
      return { roots: [{ provider: 'watchfire', root, ok: true }], candidates };
    },
  };
}

/** The targets' meddling, in order, for the pass's `onPlanned`. */
export function meddling(targets: RaceTarget[]): () => Promise<void> {
  return async () => {
    for (const target of targets) await target.meddle?.();
  };
}
