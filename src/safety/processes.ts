import path from 'node:path';
import { errorCode } from '../core/errors.js';
import { readdirNamesSync, readFileSync, readlinkSync } from './fs.js';

const PF_KTHREAD = 0x00200000;

export interface ProcessTable {
  /** false where processes cannot be seen at all: no /proc, or a PID namespace hiding the host's. */
  visible: boolean;
  why?: string;
  inspected: number;
  uninspectable: number;
  /** Every folder that holds a process's cwd, root, open file or mapping, with those pids. */
  occupied: Map<string, Set<number>>;
}

/**
 * One scan of /proc per pass: the working directory, root, open files and mappings of every
 * process that can be inspected. A process counts as uninspectable when the kernel refuses to
 * show one of those (EACCES, EPERM); one that vanished during the scan is simply gone.
 */
export function scanProcesses(
  procRoot = '/proc',
  ignorePids: ReadonlySet<number> = new Set([process.pid]),
): ProcessTable {
  const table: ProcessTable = { visible: true, inspected: 0, uninspectable: 0, occupied: new Map() };
  let names: string[];
  try {
    names = readdirNamesSync(procRoot);
  } catch {
    return { ...table, visible: false, why: `${procRoot} cannot be read: processes are invisible` };
  }
  const hidden = hostHiddenReason(procRoot);
  if (hidden) return { ...table, visible: false, why: hidden };

  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (ignorePids.has(pid)) continue;
    const outcome = inspectProcess(path.join(procRoot, name));
    if (outcome === 'gone' || outcome === 'kernel') continue;
    if (outcome === 'denied') {
      table.uninspectable += 1;
      continue;
    }
    table.inspected += 1;
    for (const used of outcome) addOccupied(table.occupied, used, pid);
  }
  return table;
}

/** The pids with anything inside `dir` (the folder itself included). */
export function processesInside(table: ProcessTable, dir: string): number[] {
  return [...(table.occupied.get(path.resolve(dir)) ?? [])].sort((a, b) => a - b);
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

/** The initial PID namespace (the kernel's PROC_PID_INIT_INO): any other one is a container's. */
const INITIAL_PID_NAMESPACE = 'pid:[4026531836]';

function hostHiddenReason(procRoot: string): string | undefined {
  // A container's own /proc shows one id in NSpid, so the namespace itself is compared first.
  try {
    const namespace = readlinkSync(path.join(procRoot, 'self', 'ns', 'pid'));
    if (namespace !== INITIAL_PID_NAMESPACE) {
      return `this process runs in a PID namespace of its own (${namespace}), so the host's processes are hidden (use hostPID)`;
    }
  } catch {
    // No namespace link (a fake /proc, an old kernel): NSpid below decides.
  }
  try {
    const status = readFileSync(path.join(procRoot, 'self', 'status'));
    const line = status.split('\n').find((entry) => entry.startsWith('NSpid:'));
    const ids = line?.slice('NSpid:'.length).trim().split(/\s+/) ?? [];
    if (ids.length > 1) {
      return "this process runs in its own PID namespace, so the host's processes are hidden (use hostPID)";
    }
  } catch {
    return undefined;
  }
  return undefined;
}

type Inspection = string[] | 'gone' | 'denied' | 'kernel';

function inspectProcess(dir: string): Inspection {
  try {
    const stat = readFileSync(path.join(dir, 'stat'));
    // Field 9 (flags) follows the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const flags = Number(fields[6]);
    if ((flags & PF_KTHREAD) !== 0) return 'kernel';
    if (fields[0] === 'Z') return 'gone';
  } catch (err) {
    return classify(err);
  }
  const used: string[] = [];
  try {
    for (const link of ['cwd', 'root']) used.push(readlinkSync(path.join(dir, link)));
    const fdDir = path.join(dir, 'fd');
    for (const fd of readdirNamesSync(fdDir)) {
      const target = readLinkIfPresent(path.join(fdDir, fd));
      if (target && target.startsWith('/')) used.push(stripDeleted(target));
    }
    for (const line of readFileSync(path.join(dir, 'maps')).split('\n')) {
      const slash = line.indexOf('/');
      if (slash !== -1) used.push(stripDeleted(line.slice(slash)));
    }
  } catch (err) {
    return classify(err);
  }
  return used.filter((entry) => entry !== '/');
}

function readLinkIfPresent(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

function stripDeleted(p: string): string {
  return p.endsWith(' (deleted)') ? p.slice(0, -' (deleted)'.length) : p;
}

function classify(err: unknown): 'gone' | 'denied' {
  const code = errorCode(err);
  if (code === 'ENOENT' || code === 'ESRCH') return 'gone';
  return 'denied';
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
