import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import { isInside } from '../../safety/inside.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { formatBytes } from '../../util/format.js';
import type { Traces } from './evidence.js';
import type { ClaudeEvidence } from './judge.js';
import { PARENT_VARIABLE } from './layout.js';
import type { TaskRoot } from './locations.js';

interface OpenDeleted {
  path: string;
  bytes: number;
  /** Each holder's pid and the descriptors it holds the file on. */
  holders: Map<number, string[]>;
}

/**
 * Output files deleted while a process still writes them (Claude Code's own retention removes a
 * session's folder under a live orphan): no listing shows them, `du` does not count them, and
 * they go on growing. Each is reported as an item `refused` `in-use` at the path it had, naming
 * its size and holders: only stopping them frees the space. Its `bytes` are 0, as nothing of it
 * is reachable by path; the size is in the detail.
 */
export function deletedButOpen(root: TaskRoot, traces: Traces, evidence: ClaudeEvidence): Candidate[] {
  if ('error' in traces) return [];
  const files = new Map<string, OpenDeleted>();
  for (const trace of traces.records)
    for (const held of trace.openDeleted) {
      if (![root.path, root.canonical].some((name) => isInside(name, held.path))) continue;
      const key = `${held.dev}:${held.ino}`;
      const file = files.get(key) ?? { path: held.path, bytes: held.bytes, holders: new Map() };
      file.holders.set(trace.pid, [...(file.holders.get(trace.pid) ?? []), held.fd]);
      files.set(key, file);
    }
  return [...files.values()].map((file) => {
    const pids = [...file.holders.keys()].sort((a, b) => a - b);
    const named = describeProcesses(traces.procRoot, pids.slice(0, 3))
      .map((each) => {
        const fds = file.holders.get(each.pid) ?? [];
        const session = orphanNote(each.pid, evidence);
        return `${each.pid} (${each.command}${each.user === null ? '' : `, run by ${each.user}`}; fd ${fds.join(', ')}${session})`;
      })
      .join(', ');
    const more = pids.length > 3 ? ` and ${pids.length - 3} more` : '';
    const them = pids.length === 1 ? `process ${pids[0]}` : 'those processes';
    return {
      provider: 'claude-code',
      kind: 'task-output',
      path: file.path,
      root: isInside(root.path, file.path) ? root.path : root.canonical,
      homeOwner: root.owner,
      judgement: {
        decision: 'refused',
        reason: 'in-use',
        detail: `${path.basename(file.path)} was deleted, but process${pids.length === 1 ? '' : 'es'} ${named}${more} still hold${pids.length === 1 ? 's' : ''} it open: ${formatBytes(file.bytes)} in use that no listing shows; stopping ${them} frees the space`,
      },
    };
  });
}

function orphanNote(pid: number, evidence: ClaudeEvidence): string {
  const carrier = evidence.carriers.find((each) => each.pid === pid);
  if (!carrier) return '';
  const parent =
    carrier.parentLife.state === 'dead'
      ? `, whose Claude Code (${PARENT_VARIABLE}=${carrier.parentPid ?? 'none'}) is gone`
      : '';
  return `; a background shell of session ${carrier.sessionId}${parent}`;
}
