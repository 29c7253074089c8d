import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { placeInOurView, processPathIs } from '../../safety/identity/process-paths.js';
import { canonicalIfSame, canonicalOf } from '../../safety/identity/recorded.js';
import { isInside } from '../../safety/inside.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { ownPidDomain, processStart } from '../../safety/processes/process-start.js';
import type { ProcessRecord, ProcessTable } from '../../safety/processes/processes.js';
import type {
  Carrier,
  ClaudeEvidence,
  JudgedRecord,
  JudgedShell,
  Life,
  RunningClaude,
  RunningConfig,
  Unseen,
} from './judge.js';
import {
  CONFIG_DIR_VARIABLE,
  isClaudeCodeProcess,
  PARENT_VARIABLE,
  PWD_VARIABLE,
  SESSION_VARIABLE,
  sessionFolderOf,
  slugOf,
} from './layout.js';
import { configDirs, type ClaudeUser, type TaskRoot } from './locations.js';
import { readClaudeState, type AdoptedShell, type ConfigDir, type SessionRecord } from './registry.js';

/** The pass's one look at the processes, as it bears on the roots (or why there could be none). */
export type Traces = ({ records: ProcessRecord[] } | { error: string }) & { procRoot: string };

/** The processes of one look at /proc, or why none can be seen. */
export function tracesOf(table: ProcessTable): Traces {
  if (!table.visible)
    return { error: `the processes cannot be seen: ${table.why ?? 'an unknown reason'}`, procRoot: table.procRoot };
  return { records: [...table.records.values()], procRoot: table.procRoot };
}

/** The pid domain of this pass, or why it is unknown (then no record can be matched to a process here). */
export function pidDomain(procRoot: string): string | Error {
  try {
    return ownPidDomain(procRoot);
  } catch (err) {
    return err instanceof Error ? err : new Error(errorMessage(err));
  }
}

/**
 * What the rule reads of one uid: its registries (every config folder of its homes, and every
 * `CLAUDE_CONFIG_DIR` a running Claude Code of the uid carries) and adopted shells, each record
 * and shell matched to /proc; the running Claude Code processes and the projects they work in;
 * the processes that carry a session id; and the processes of the uid whose environment cannot be
 * read.
 */
export async function gatherEvidence(
  user: ClaudeUser,
  roots: readonly TaskRoot[],
  traces: Traces,
  domain: string | Error,
  env: NodeJS.ProcessEnv,
): Promise<ClaudeEvidence> {
  const { procRoot } = traces;
  const claudes =
    'error' in traces ? [] : traces.records.filter((trace) => trace.uid === user.uid && isClaudeCodeProcess(trace));
  const named = processConfigDirs(user, claudes, procRoot);
  const dirs = distinct([...configDirs(user, env), ...named.dirs]);
  const state = await readClaudeState(dirs);
  const names = roots.map((root) => [root.path, root.canonical]);
  const folderOf = (file: string) => names.map((each) => sessionFolderOf(file, each)).find((each) => each) ?? null;
  return {
    problems: [...named.problems, ...state.problems],
    configDirs: dirs,
    records: state.records.map((record) => judgedRecord(record, domain, procRoot)),
    shells: state.shells.map((shell) => judgedShell(shell, folderOf(shell.outputPath), procRoot)),
    carriers: 'error' in traces ? [] : carriersOf(traces.records, procRoot),
    running: runningClaudes(claudes, procRoot, named.byPid),
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
 * The config folder each running Claude Code of the uid names in its `CLAUDE_CONFIG_DIR` (a work
 * profile such as `~/.claude-work`), resolved as that process sees it and found by identity in this
 * pass's view (rule 25). One that cannot be found here, or a Claude Code whose environment cannot be
 * read, is a registry that cannot be read (rule 27): nothing of the uid is then proven dead.
 */
function processConfigDirs(
  user: ClaudeUser,
  claudes: readonly ProcessRecord[],
  procRoot: string,
): { dirs: ConfigDir[]; problems: string[]; byPid: Map<number, RunningConfig> } {
  const dirs: ConfigDir[] = [];
  const problems: string[] = [];
  const byPid = new Map<number, RunningConfig>();
  for (const claude of claudes) {
    if (claude.vars === null) {
      const why = `where Claude Code process ${claude.pid} keeps its registry (${CONFIG_DIR_VARIABLE}) is unknown: ${claude.environError ?? 'its environment cannot be read'}`;
      problems.push(why);
      byPid.set(claude.pid, { state: 'unknown', why });
      continue;
    }
    const named = claude.vars[CONFIG_DIR_VARIABLE];
    if (!named) {
      byPid.set(claude.pid, { state: 'default' });
      continue;
    }
    const placed = placeInOurView(procRoot, claude.pid, named, claude.cwd);
    if (placed.state === 'unknown') {
      const why = `the registry of Claude Code process ${claude.pid} (${CONFIG_DIR_VARIABLE}=${named}) cannot be read: ${placed.why}`;
      problems.push(why);
      byPid.set(claude.pid, { state: 'unknown', why });
    } else if (placed.state === 'found') {
      const home = user.homes.find((each) => isInside(each, placed.path));
      dirs.push({ dir: placed.path, basis: home === undefined ? { outside: { uid: user.uid } } : { home } });
      byPid.set(claude.pid, { state: 'named', dir: placed.path });
    } else byPid.set(claude.pid, { state: 'named', dir: path.resolve(claude.cwd, named) });
  }
  return { dirs, problems, byPid };
}

/** Config folders named twice (`$CLAUDE_CONFIG_DIR` of the pass and of a process, two spellings) are read once. */
function distinct(dirs: readonly ConfigDir[]): ConfigDir[] {
  const seen = new Set<string>();
  return dirs.filter((each) => {
    const key = canonicalOf(each.dir);
    const name = key.state === 'found' ? key.path : path.resolve(each.dir);
    return !seen.has(name) && Boolean(seen.add(name));
  });
}

/**
 * The running Claude Code processes, each with the slug of every spelling of its working
 * directory (rule 25): the path /proc shows, its `PWD` unless that is another folder (the shell's
 * spelling through a link), and its canonical path in this view.
 */
function runningClaudes(
  claudes: readonly ProcessRecord[],
  procRoot: string,
  configs: ReadonlyMap<number, RunningConfig>,
): RunningClaude[] {
  const described = new Map(
    describeProcesses(
      procRoot,
      claudes.map((claude) => claude.pid),
    ).map((each) => [each.pid, `${each.pid} (${each.command}${each.user === null ? '' : `, run by ${each.user}`})`]),
  );
  return claudes.map((claude) => {
    const spellings = [claude.cwd];
    const [dev, ino] = claude.identities;
    const pwd = claude.vars?.[PWD_VARIABLE];
    if (dev !== undefined && ino !== undefined) {
      const identity = { dev, ino };
      if (pwd && path.isAbsolute(pwd) && processPathIs(procRoot, claude.pid, pwd, identity) !== false)
        spellings.push(pwd);
      const canonical = canonicalIfSame(claude.cwd, identity);
      if (canonical) spellings.push(canonical);
    } else if (pwd && path.isAbsolute(pwd)) spellings.push(pwd);
    return {
      pid: claude.pid,
      named: described.get(claude.pid) ?? String(claude.pid),
      cwd: claude.cwd,
      slugs: [...new Set(spellings.map(slugOf))],
      config: configs.get(claude.pid) ?? { state: 'default' },
    };
  });
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
    slugs: [slugOf(record.cwd)],
  };
  if (domain instanceof Error)
    return { ...spelled(base), life: unknown(`this pass's pid domain is unknown: ${domain.message}`) };
  const life = lifeOf(record.pid, record.procStart, procRoot);
  if (life.state === 'dead' && record.pidDomain === domain) return { ...base, life };
  return { ...spelled(base), life: judgedLife(record, life, domain) };
}

/**
 * A record with the slug of each spelling of its cwd: the text, and its canonical path where it
 * resolves; where it cannot be resolved it may be any project (rule 25).
 */
function spelled<T extends Pick<JudgedRecord, 'cwd' | 'slugs'>>(record: T): T & { cwdUnknown?: string } {
  const canonical = canonicalOf(record.cwd);
  if (canonical.state === 'unknown') return { ...record, cwdUnknown: canonical.why };
  if (canonical.state === 'missing') return record;
  return { ...record, slugs: [...new Set([...record.slugs, slugOf(canonical.path)])] };
}

function judgedLife(record: SessionRecord, life: Life, domain: string): Life {
  if (record.pidDomain === undefined)
    return life.state === 'live'
      ? life
      : unknown(`the record names no pidDomain, so pid ${record.pid} may be another machine's or container's`);
  if (record.pidDomain !== domain)
    return unknown(
      `it was written in pid domain ${record.pidDomain}, and this pass runs in ${domain} (a container, or another machine sharing the home)`,
    );
  return life;
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
