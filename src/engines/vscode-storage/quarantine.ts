import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import type { ProviderName } from '../../model/types.js';

/**
 * A `.<name>.cleanup-<uuid>` left by an interrupted deletion: it was proven dead when it was
 * renamed, so it is finished whatever the history says now (and even while it cannot be read).
 */
export function quarantineCandidate(provider: ProviderName, target: string, root: string): Candidate {
  return {
    provider,
    kind: 'quarantine',
    path: target,
    root,
    judgement: {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(target)} is a checkpoint repository renamed for deletion whose removal did not finish`,
    },
  };
}
