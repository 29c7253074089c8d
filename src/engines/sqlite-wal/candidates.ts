import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import type { ProviderName } from '../../model/types.js';
import { parseSize } from '../../config/size.js';
import type { Owner } from '../../safety/owners/owner.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { examineWalPair, walFilesOf, walHolders, type WalPair } from '../../safety/wal/pair.js';
import { judgeWal } from './judge.js';
import type { ToolSignal } from './signals.js';

/** One database of a tool's, as its provider found it. */
export interface WalDatabase {
  /** `<db>`; its log is `<db>-wal`, its shared memory `<db>-shm`. */
  database: string;
  /** The folder the provider located it in (rule 20): the log is judged only inside it, no link between. */
  root: string;
  homeOwner: Owner;
  /** The tool, as details name it (`Codex`, `opencode`). */
  tool: string;
  /**
   * Whether this tool reads the database at every pass for its provider's records: SQLite rewrites
   * the shared memory at every first open, so its newest write then says when this tool last read
   * it, and the log's own newest write is what counts for minAge.
   */
  readByThePass?: boolean;
  /** The tool's own sign that it is at work on its databases (Codex's maintenance lock, Cline's hub). */
  signal?: ToolSignal;
}

/** How many of the processes holding a database a refusal names. */
const HOLDERS_NAMED = 3;

/**
 * One `wal-checkpoint` candidate per database whose log is at least `reclaim.walMinBytes`: reclaimed
 * by a checkpoint where no process holds the database, its log or its shared memory and the tool
 * is not at work on it (the executor proves it all again and runs the checkpoint); refused, with
 * the log's bytes, where a process holds it (`in-use`) or the pair may not be opened (an orphan
 * log, a link, another owner, a remote file system). A database without a log is no candidate.
 */
export function walCandidates(
  provider: ProviderName,
  databases: readonly WalDatabase[],
  ctx: Pick<GatherContext, 'config' | 'processes'>,
): Candidate[] {
  const minBytes = parseSize(ctx.config.reclaim.walMinBytes) ?? 0;
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const each of databases) {
    if (seen.has(each.database)) continue;
    seen.add(each.database);
    const files = walFilesOf(each.database);
    const pair = examineWalPair(each.database);
    if (pair.state === 'no-log') continue;
    const walBytes = pair.wal?.size ?? null;
    if (walBytes !== null && walBytes < minBytes) continue;
    const processes = ctx.processes.visible ? ctx.processes : null;
    const holders = processes ? walHolders(processes, files, pair) : [];
    const problem = pair.state === 'refused' ? pair.problem : null;
    const judgement = judgeWal({
      database: each.database,
      wal: files.wal,
      walBytes,
      tool: each.tool,
      problem,
      holders: {
        count: holders.length,
        described: processes ? describeProcesses(processes.procRoot, holders.slice(0, HOLDERS_NAMED)) : [],
      },
      toolAtWork: problem || holders.length > 0 ? null : (each.signal?.atWork() ?? null),
    });
    const shmAged = each.readByThePass !== true;
    candidates.push({
      provider,
      kind: 'wal-checkpoint',
      path: files.wal,
      root: each.root,
      judgement,
      homeOwner: each.homeOwner,
      ...(shmAged && pair.state === 'ready' && pair.shm ? { alsoWatch: [files.shm] } : {}),
      ...(pair.state === 'ready' ? { removal: checkpointOf(each, pair, shmAged) } : {}),
    });
  }
  return candidates;
}

function checkpointOf(each: WalDatabase, pair: Extract<WalPair, { state: 'ready' }>, shmAged: boolean) {
  return {
    type: 'checkpoint' as const,
    database: each.database,
    planned: { wal: pair.wal, database: pair.database },
    shmAged,
    ...(each.signal ? { guard: each.signal.guard } : {}),
  };
}
