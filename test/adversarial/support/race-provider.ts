import path from 'node:path';
import type { ApplyContext, Candidate, Provider } from '../../../src/core/types.js';

export interface RaceTarget {
  path: string;
  /**
   * Runs while the pass carries out its plan, after every candidate was inspected and judged and
   * before the targets listed after this one are deleted: the window between plan and delete.
   */
  meddle?: () => Promise<void> | void;
}

/**
 * A real Provider whose candidates are the given folders, each proven dead by its owner's record,
 * all contained in `root`. A target with `meddle` is removed through a custom removal that first
 * runs `meddle` (swapping a later target for a link, starting a process in it…) and then removes
 * its own folder the ordinary way; the executor runs removals in the order given.
 */
export function raceProvider(root: string, targets: RaceTarget[]): Provider {
  return {
    name: 'watchfire',
    async gather() {
      const candidates: Candidate[] = targets.map((target) => ({
        provider: 'watchfire',
        kind: 'session-home',
        path: target.path,
        root,
        judgement: { decision: 'delete', reason: 'test-dead', detail: `${path.basename(target.path)} is dead by the test's record` },
        ...(target.meddle
          ? {
              removal: {
                type: 'custom' as const,
                apply: async (ctx: ApplyContext) => {
                  await (target.meddle as () => Promise<void> | void)();
                  await ctx.removeTree(target.path);
                },
              },
            }
          : {}),
      }));
      return { roots: [{ provider: 'watchfire', root, ok: true }], candidates };
    },
  };
}
