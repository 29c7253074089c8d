import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import type { BlindReason } from '../../model/types.js';
import { readdirNamesSync } from '../fs/list.js';
import { readKernelFileSync } from '../fs/read.js';
import { readlinkSync, realpathSync } from '../fs/stat.js';
import { GIT_VARIABLES, readGitProcess, type GitProcess } from './git-processes.js';
import { IdentityIndex } from './identities.js';
import { namespaceView, readNamespaceMounts, type MountViews, type NamespaceMounts } from './mount-namespaces.js';
import { parseMountinfo } from './mountinfo.js';
import { classify, inspectProcess, realUid, type ProcessView } from './process-view.js';
import { procVisibility } from './proc-visibility.js';
import { descendantsOf } from './descendants.js';

/**
 * Which processes a scan looks at: every process of the machine, or only those this process
 * started (its children and theirs): a demo judges its sandbox by its own processes alone, so that
 * a live tool elsewhere never leads it to another folder.
 */
export type ProcessScope = 'machine' | 'own';

export interface ProcessTable {
  /** false where processes cannot be seen (rule 19, src/safety/processes/proc-visibility.ts). */
  visible: boolean;
  /** The test of rule 19 that failed, when not visible. */
  blindBecause?: BlindReason;
  why?: string;
  inspected: number;
  uninspectable: number;
  /** Every folder that holds a process's cwd, root, open file or mapping, with those pids (the path test). */
  occupied: Map<string, Set<number>>;
  /** The files themselves that processes hold, by device and inode (the identity test). */
  identities: IdentityIndex;
  /** The processes that run git, with every place each names or holds (a gc or repack at work in a repository). */
  gitProcesses: GitProcess[];
  /**
   * Every process inspected, by pid: what it runs, whose it is, its working directory, the
   * variables of its environment that tools name their state with (rule 27), the deleted files it
   * holds open. The one look at /proc of a pass: providers read it, never /proc themselves.
   */
  records: Map<number, ProcessRecord>;
  /** The processes the kernel would not show (EACCES, EPERM), each with its uid where /proc says. */
  hidden: Array<{ pid: number; uid: number | null }>;
  /** Our mounts and the folder mounts of every mount namespace seen; null where unknown. */
  mounts: MountViews | null;
  /** The /proc it was read from, to describe a process a refusal names. */
  procRoot: string;
}

/** One process of the scan: its pid, and what the scan read of it. */
export interface ProcessRecord extends ProcessView {
  pid: number;
}

/**
 * One scan of /proc: the working directory, root, open files and mappings of every process that
 * can be inspected, by path and by identity, and the mounts of each mount namespace once. A
 * process counts as uninspectable when the kernel refuses to show one of those (EACCES, EPERM);
 * one that vanished during the scan is simply gone. Whatever `procRoot` is, rule 19 decides first
 * whether what it shows is every process: a folder that is not the pass's own procfs is blind.
 */
export function scanProcesses(
  procRoot = '/proc',
  ignorePids: ReadonlySet<number> = new Set([process.pid]),
  variables: Iterable<string> = [],
  scope: ProcessScope = 'machine',
): ProcessTable {
  const asked = new Set([...GIT_VARIABLES, ...variables]);
  const table: ProcessTable = {
    visible: true,
    inspected: 0,
    uninspectable: 0,
    occupied: new Map(),
    identities: new IdentityIndex(),
    gitProcesses: [],
    records: new Map(),
    hidden: [],
    mounts: null,
    procRoot,
  };
  const sight = procVisibility(procRoot);
  if (!sight.visible) return { ...table, visible: false, blindBecause: sight.because, why: sight.why };
  let names: string[];
  try {
    names = readdirNamesSync(procRoot);
  } catch (err) {
    const why = `${procRoot} cannot be listed (${errorMessage(err)}): processes are invisible`;
    return { ...table, visible: false, blindBecause: 'proc-unreadable', why };
  }

  const pids = names.filter((name) => /^\d+$/.test(name)).map(Number);
  const inScope = scope === 'own' ? descendantsOf(procRoot, pids, process.pid) : null;
  const mounts = ownMounts(procRoot);
  const seen = new Map<string, NamespaceMounts | null>();
  if (mounts.ownNamespace) seen.set(mounts.ownNamespace, mounts.ownView);
  for (const pid of pids) {
    if (ignorePids.has(pid) || (inScope && !inScope.has(pid))) continue;
    const dir = path.join(procRoot, String(pid));
    const outcome = inspectProcess(dir, asked);
    if (outcome === 'gone' || outcome === 'kernel') continue;
    if (outcome === 'denied') {
      table.uninspectable += 1;
      table.hidden.push({ pid, uid: realUid(dir) });
      continue;
    }
    table.records.set(pid, { pid, ...outcome });
    for (const used of outcome.paths) if (used !== '/') addOccupied(table.occupied, used, pid);
    const { identities } = outcome;
    for (let i = 0; i < identities.length; i += 2)
      table.identities.add(identities[i] as number, identities[i + 1] as number, pid);
    const git = readGitProcess(dir, pid, outcome);
    if (git) table.gitProcesses.push(git);
    const namespace = outcome.mountNamespace;
    if (namespace !== null && !seen.get(namespace)) {
      // A namespace's mounts are read through its first process that shows them.
      const view = namespaceOf(dir, namespace, pid);
      if (view === 'gone') continue;
      if (view === 'denied') {
        table.uninspectable += 1;
        table.hidden.push({ pid, uid: outcome.uid });
        continue;
      }
      seen.set(namespace, view);
    }
    table.inspected += 1;
  }
  table.mounts = {
    own: mounts.own,
    namespaces: [...seen.values()].filter((view): view is NamespaceMounts => view !== null),
  };
  return table;
}

/**
 * The pids with anything inside `target`, matched by its lexical and its canonical path (`canonical`
 * when the caller has it already; gone or unreadable, the lexical path is all there is to match).
 */
export function pidsInside(table: ProcessTable, target: string, canonical = canonicalOrNull(target)): number[] {
  return union(processesInside(table, target), canonical === null ? [] : processesInside(table, canonical));
}

/** The pids of both lists, once each, in order. */
export function union(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return [...a];
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

function canonicalOrNull(target: string): string | null {
  try {
    return realpathSync(target);
  } catch {
    return null;
  }
}

/** The pids with anything inside `dir` (the folder itself included), by path. */
export function processesInside(table: ProcessTable, dir: string): number[] {
  return [...(table.occupied.get(path.resolve(dir)) ?? [])].sort((a, b) => a - b);
}

function ownMounts(procRoot: string) {
  const self = path.join(procRoot, 'self');
  let ownNamespace: string | null = null;
  try {
    ownNamespace = readlinkSync(path.join(self, 'ns', 'mnt'));
  } catch {
    // A /proc without namespace links: only paths and identities are compared.
  }
  try {
    const own = parseMountinfo(readKernelFileSync(path.join(self, 'mountinfo')));
    const ownView = ownNamespace ? namespaceView(own, ownNamespace, process.pid, true) : null;
    return { own, ownNamespace, ownView };
  } catch {
    return { own: null, ownNamespace, ownView: null };
  }
}

function namespaceOf(dir: string, namespace: string, pid: number): NamespaceMounts | 'gone' | 'denied' {
  try {
    return readNamespaceMounts(path.join(dir, 'mountinfo'), namespace, pid, false);
  } catch (err) {
    return classify(err);
  }
}

function addOccupied(occupied: Map<string, Set<number>>, used: string, pid: number): void {
  // Index every ancestor folder, so asking "is anything inside X?" is one lookup per candidate.
  let current = used;
  for (;;) {
    let pids = occupied.get(current);
    if (!pids) {
      pids = new Set();
      occupied.set(current, pids);
    }
    if (pids.has(pid)) return;
    pids.add(pid);
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

/** A process counts as dead only when the kernel says so. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) !== 'ESRCH';
  }
}
