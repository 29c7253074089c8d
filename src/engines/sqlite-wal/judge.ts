import type { OwnerJudgement } from '../../model/types.js';
import type { ProcessDescription } from '../../safety/processes/process-description.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import type { PairProblem } from '../../safety/wal/pair.js';
import { formatBytes } from '../../util/format.js';

/** What the engine found of one database whose log is large enough to speak of. */
export interface WalEvidence {
  database: string;
  wal: string;
  /** The log's size, or null where it cannot be told (a link). */
  walBytes: number | null;
  /** The tool, as details name it (`Codex`, `opencode`). */
  tool: string;
  /** Why the pair may not be checkpointed at all (an orphan log, a link, a remote file system). */
  problem: PairProblem | null;
  /** The processes holding the database, its log or its shared memory (all of them counted, a few described). */
  holders: { count: number; described: ProcessDescription[] };
  /** Why the tool is at work on its databases now, by its own signal (a lock held, a live daemon). */
  toolAtWork: string | null;
}

/**
 * The engine's judgement of one log, before the safety engine's. Pure. A log no process holds, of
 * a database the tool is not at work on, is reclaimed by a checkpoint, losslessly; one a process
 * holds is reported with its bytes (held bytes) and what frees it; a pair that cannot be
 * checkpointed here says why.
 */
export function judgeWal(evidence: WalEvidence): OwnerJudgement {
  const { database, tool } = evidence;
  const size = evidence.walBytes === null ? 'its log' : `its log of ${formatBytes(evidence.walBytes)}`;
  if (evidence.problem)
    return { decision: 'refused', reason: evidence.problem.reason, detail: evidence.problem.detail };
  const freedBy = 'quit or restart them; their last close checkpoints it';
  if (evidence.holders.count > 0) {
    const one = evidence.holders.count === 1;
    return {
      decision: 'refused',
      reason: 'in-use',
      detail: `${nameProcesses(evidence.holders.described, evidence.holders.count)} ${one ? 'holds' : 'hold'} ${database} (${size}) open: ${freedBy} (a reader that never ends its transaction keeps any checkpoint from reaching the log's end, and the log grows)`,
    };
  }
  if (evidence.toolAtWork)
    return {
      decision: 'refused',
      reason: 'in-use',
      detail: `${evidence.toolAtWork}; ${tool} is at work on ${database} (${size}): ${freedBy}`,
    };
  return {
    decision: 'delete',
    reason: 'wal-left-behind',
    detail: `no process holds ${database}, ${size} or its shared memory, and ${tool} is not at work on it: a checkpoint copies the log's committed pages into the database and truncates the log, losing nothing`,
  };
}
