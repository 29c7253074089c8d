import { workingIn } from '../../safety/identity/working-directory.js';
import type { Identity } from '../../safety/identity/resolve.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import type { ProcessTable } from '../../safety/processes/processes.js';
import { isGeminiProcess } from './layout.js';

/**
 * The Gemini CLI processes that work in a project (rule 27): by identity, whatever path each took
 * to it (rule 25), stopped or frozen alike (rule 26); one whose working directory cannot be told
 * counts as working there. Null when none does; else the processes, named for a detail.
 */
export function geminiWorkingIn(project: Identity, processes: ProcessTable): string | null {
  const working: number[] = [];
  const unknown: string[] = [];
  for (const record of processes.records.values()) {
    if (!isGeminiProcess(record)) continue;
    const place = workingIn(processes.procRoot, record.pid, project);
    if (place.state === 'inside') working.push(record.pid);
    else if (place.state === 'unknown') {
      working.push(record.pid);
      unknown.push(place.why);
    }
  }
  if (working.length === 0) return null;
  const named = nameProcesses(describeProcesses(processes.procRoot, working.slice(0, 3)), working.length);
  return unknown.length === 0 ? named : `${named} (where it works cannot be told: ${unknown[0]})`;
}
