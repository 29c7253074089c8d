import path from 'node:path';
import type { ProcessRecord, ProcessTable } from '../../safety/processes/processes.js';
import type { Liveness } from './judge.js';

/**
 * Whether a pid Copilot wrote down (in a log's name, an in-use lock's) is a live process, from the
 * pass's one look at /proc: any process of that pid counts, stopped or frozen ones included (rule
 * 26), and so does one the kernel would not show; where processes cannot be seen, it may be.
 */
export function livenessOf(table: ProcessTable, pid: number): Liveness {
  // The pass never looks at itself in /proc, and it is alive.
  if (pid === process.pid) return { state: 'alive', process: `process ${pid} (this pass)` };
  if (!table.visible)
    return { state: 'unknown', why: table.why ?? `processes cannot be seen (${table.blindBecause ?? 'unknown'})` };
  const record = table.records.get(pid);
  if (record) return { state: 'alive', process: `process ${pid} (${nameOf(record)})` };
  if (table.hidden.some((each) => each.pid === pid))
    return { state: 'alive', process: `process ${pid} (which the pass may not inspect)` };
  return { state: 'dead' };
}

/** What a process runs, in a word: the native Copilot names its main thread `MainThread`, its argv[0] `copilot`. */
function nameOf(record: ProcessRecord): string {
  const first = record.argv?.[0];
  return first ? path.basename(first) : record.command;
}
