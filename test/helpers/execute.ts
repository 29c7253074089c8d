import path from 'node:path';
import pino from 'pino';
import { scanProcesses } from '../../src/safety/processes/processes.js';
import { executePlan, type ExecutedDeletion } from '../../src/pass/executor.js';
import type { Candidate } from '../../src/provider-api/candidate.js';
import type { ReportItem } from '../../src/model/types.js';
import { inspectCandidate } from '../../src/pass/inspect.js';
import { CLOCK_MARGIN_MS } from '../../src/safety/since.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The moment a pass reads before it collects evidence, as a pass takes it: a little after the
 * fixture's last change, and at least the clock margin before anything that follows.
 */
export async function evidenceMoment(): Promise<number> {
  await sleep(2);
  const since = Date.now();
  await sleep(CLOCK_MARGIN_MS + 1);
  return since;
}

/** One candidate proven dead, inspected now and handed to the executor as a deleting pass would. */
export async function executeOne(
  candidate: Candidate,
  options: { sinceMs: number; before?: () => void | Promise<void> },
): Promise<ExecutedDeletion> {
  const facts = inspectCandidate(candidate, null);
  const item: ReportItem = {
    provider: candidate.provider,
    kind: candidate.kind,
    path: candidate.path,
    bytes: facts?.bytes ?? 0,
    verdict: 'would-delete',
    reason: candidate.judgement.reason,
    detail: candidate.judgement.detail,
  };
  await options.before?.();
  const [done] = await executePlan([{ candidate, facts, item }], {
    log: pino({ level: 'silent' }),
    onDeleted: async () => undefined,
    evidenceSinceMs: options.sinceMs,
    lookAtProcesses: () => scanProcesses(),
  });
  return done as ExecutedDeletion;
}

/** A candidate the test's own record calls dead, for `executeOne`. */
export function deadCandidate(target: string, root: string, removal: Candidate['removal']): Candidate {
  return {
    provider: 'worktrees',
    kind: 'worktree',
    path: target,
    root: root ?? path.dirname(target),
    judgement: { decision: 'delete', reason: 'idle-clean', detail: 'dead by the test' },
    ...(removal ? { removal } : {}),
  };
}
