import { errorMessage } from '../../core/errors.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { ownPidDomain, processStart } from '../../safety/processes/process-start.js';
import type { ProcessRecord, ProcessTable } from '../../safety/processes/processes.js';
import type { Carrier, ClaudeEvidence, JudgedRecord, JudgedShell, Life, Unseen } from './judge.js';
import { PARENT_VARIABLE, SESSION_VARIABLE, sessionFolderOf, slugOf } from './layout.js';
import { configDirs, type ClaudeUser, type TaskRoot } from './locations.js';
import { readClaudeState, type AdoptedShell, type SessionRecord } from './registry.js';

/** The pass's one look at the processes, as it bears on the roots (or why there could be none). */
export type Traces = { records: ProcessRecord[] } | { error: string };

/** The processes of one look at /proc, or why none can be seen. */
export function tracesOf(table: ProcessTable): Traces {
  if (!table.visible) return { error: `the processes cannot be seen: ${table.why ?? 'an unknown reason'}` };
  return { records: [...table.records.values()] };
}

/** The pid domain of this pass, or why it is unknown (then no record can be matched to a process here). */
export function pidDomain(procRoot = '/proc'): string | Error {
  try {
    return ownPidDomain(procRoot);
  } catch (err) {
    return err instanceof Error ? err : new Error(errorMessage(err));
  }
}

/**
 * What the rule reads of one uid: its registries and adopted shells (each record and shell matched
 * to /proc), the processes that carry a session id, and the processes of the uid whose
 * environment cannot be read.
 */
export async function gatherEvidence(
  user: ClaudeUser,
  roots: readonly TaskRoot[],
  traces: Traces,
  domain: string | Error,
  env: NodeJS.ProcessEnv,
  procRoot = '/proc',
): Promise<ClaudeEvidence> {
  const state = await readClaudeState(configDirs(user, env));
  const names = roots.map((root) => [root.path, root.canonical]);
  const folderOf = (file: string) => names.map((each) => sessionFolderOf(file, each)).find((each) => each) ?? null;
  return {
    problems: state.problems,
    records: state.records.map((record) => judgedRecord(record, domain, procRoot)),
    shells: state.shells.map((shell) => judgedShell(shell, folderOf(shell.outputPath), procRoot)),
    carriers: 'error' in traces ? [] : carriersOf(traces.records, procRoot),
    unseen:
      'error' in traces
        ? [{ who: 'any process', why: traces.error }]
        : traces.records
            // A process the kernel hides altogether is one the safety engine counts as uninspectable
            // (rule 4: auto goes on, required refuses); one whose environment alone is hidden is unknown.
            .filter((trace) => trace.vars === null && trace.uid === user.uid)
            .map(
              (trace): Unseen => ({
                who: `process ${trace.pid}`,
                why: trace.environError ?? 'its environment cannot be read',
              }),
            ),
  };
}

/**
 * A record counts as live only when its pid runs with the recorded start, in this machine's and
 * this PID namespace's pid domain. A record of another domain (a container, another machine on a
 * shared home), or one without a domain whose pid does not run as recorded here, cannot be told.
 */
function judgedRecord(record: SessionRecord, domain: string | Error, procRoot: string): JudgedRecord {
  const base = {
    file: record.file,
    pid: record.pid,
    sessionId: record.sessionId,
    cwd: record.cwd,
    slug: slugOf(record.cwd),
  };
  if (domain instanceof Error)
    return { ...base, life: unknown(`this pass's pid domain is unknown: ${domain.message}`) };
  const life = lifeOf(record.pid, record.procStart, procRoot);
  if (record.pidDomain === undefined)
    return {
      ...base,
      life:
        life.state === 'live'
          ? life
          : unknown(`the record names no pidDomain, so pid ${record.pid} may be another machine's or container's`),
    };
  if (record.pidDomain !== domain)
    return {
      ...base,
      life: unknown(
        `it was written in pid domain ${record.pidDomain}, and this pass runs in ${domain} (a container, or another machine sharing the home)`,
      ),
    };
  return { ...base, life };
}

function judgedShell(shell: AdoptedShell, folder: string | null, procRoot: string): JudgedShell {
  return {
    file: shell.file,
    pid: shell.pid,
    outputPath: shell.outputPath,
    folder,
    life: lifeOf(shell.pid, shell.procStart, procRoot),
    ...(shell.command ? { command: shell.command } : {}),
  };
}

/** A pid runs as recorded when it runs with the recorded start (or when no start was recorded: it might be). */
function lifeOf(pid: number, recordedStart: string | undefined, procRoot: string): Life {
  const now = processStart(pid, procRoot);
  if (now.state === 'gone') return { state: 'dead', why: `pid ${pid} is gone` };
  if (now.state === 'unknown') return unknown(now.why);
  if (recordedStart === undefined || now.start === recordedStart) return { state: 'live' };
  return {
    state: 'dead',
    why: `pid ${pid} is now another process (started at tick ${now.start}, the record says ${recordedStart})`,
  };
}

/**
 * The processes that carry a session id, each with the Claude Code its `CLAUDE_PID` names: gone
 * when the kernel says so, or when that pid now runs a process started after the carrier (a pid
 * used again).
 */
function carriersOf(traces: readonly ProcessRecord[], procRoot: string): Carrier[] {
  const carrying = traces.filter((trace) => trace.vars?.[SESSION_VARIABLE]);
  const described = new Map(
    describeProcesses(
      procRoot,
      carrying.map((trace) => trace.pid),
    ).map((each) => [each.pid, `${each.pid} (${each.command}${each.user === null ? '' : `, run by ${each.user}`})`]),
  );
  return carrying.map((trace) => {
    const named = trace.vars?.[PARENT_VARIABLE];
    const parentPid = named !== undefined && /^\d+$/.test(named) ? Number(named) : null;
    return {
      pid: trace.pid,
      named: described.get(trace.pid) ?? String(trace.pid),
      sessionId: trace.vars?.[SESSION_VARIABLE] as string,
      parentPid,
      parentLife: parentPid === null ? { state: 'dead', why: 'no pid named' } : parentLife(parentPid, trace, procRoot),
    };
  });
}

function parentLife(pid: number, child: ProcessRecord, procRoot: string): Life {
  const now = processStart(pid, procRoot);
  if (now.state === 'gone') return { state: 'dead', why: `pid ${pid} is gone` };
  if (now.state === 'unknown') return unknown(now.why);
  if (child.start !== null && BigInt(now.start) > BigInt(child.start))
    return { state: 'dead', why: `pid ${pid} is now a process started after it` };
  return { state: 'live' };
}

const unknown = (why: string): Life => ({ state: 'unknown', why });
