import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import { readdirNamesSync } from '../fs/list.js';
import { readKernelFileSync } from '../fs/read.js';
import { lstatOrNullSync, readlinkSync, statProcLinkSync } from '../fs/stat.js';
import { isInside } from '../inside.js';
import { classify } from './process-view.js';
import { startTicksOf } from './process-start.js';

const PF_KTHREAD = 0x00200000;
const DELETED = ' (deleted)';

/** A file a process holds inside one of the folders asked about: its working directory, or an open file. */
interface HeldFile {
  /** `cwd`, or the descriptor's number. */
  fd: string;
  /** As /proc names it, ` (deleted)` cut. */
  path: string;
  /** Unlinked while still open: no listing shows it, yet its blocks stay in use. */
  deleted: boolean;
  bytes: number;
  dev: number;
  ino: number;
}

/** What a scan of /proc tells of one process that carries a variable asked about or holds a file inside. */
export interface ProcessTrace {
  pid: number;
  /** Its real uid (null where /proc no longer says). */
  uid: number | null;
  /** Field 22 of its stat: with the pid, who it is. */
  start: string | null;
  /** The variables asked about that its environment carries; null where the environment cannot be read. */
  vars: Record<string, string> | null;
  /** Why its environment cannot be read. */
  environError?: string;
  held: HeldFile[];
  /**
   * Why its descriptors cannot be read: the kernel hides it altogether (a more privileged init), and
   * the safety engine counts it among the processes it could not inspect (rule 4).
   */
  uninspectable?: string;
}

/**
 * One look at every process's environment and descriptors: the processes that carry one of `vars`
 * (`CLAUDE_CODE_SESSION_ID`), or whose working directory or an open file lies in one of `under`
 * (deleted files included, with their size), or whose environment or descriptors cannot be read
 * (so that what they carry is unknown). Kernel threads and zombies carry nothing; a process gone
 * during the scan is left out. The pass's own process is looked at like any other.
 */
export function traceProcesses(options: {
  vars: readonly string[];
  under: readonly string[];
  procRoot?: string;
}): ProcessTrace[] {
  const procRoot = options.procRoot ?? '/proc';
  const traces: ProcessTrace[] = [];
  for (const name of readdirNamesSync(procRoot)) {
    if (!/^\d+$/.test(name)) continue;
    const trace = traceOne(path.join(procRoot, name), Number(name), options);
    if (trace === null) continue;
    const interesting =
      trace.vars === null ||
      Object.keys(trace.vars).length > 0 ||
      trace.held.length > 0 ||
      trace.uninspectable !== undefined;
    if (interesting) traces.push(trace);
  }
  return traces;
}

function traceOne(
  dir: string,
  pid: number,
  options: { vars: readonly string[]; under: readonly string[] },
): ProcessTrace | null {
  let stat: string;
  try {
    stat = readKernelFileSync(path.join(dir, 'stat'));
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X' || (Number(fields[6]) & PF_KTHREAD) !== 0) return null;
  const trace: ProcessTrace = { pid, uid: uidOf(dir), start: startTicksOf(stat), vars: {}, held: [] };
  try {
    trace.vars = pick(readKernelFileSync(path.join(dir, 'environ')), options.vars);
  } catch (err) {
    if (classify(err) === 'gone') return null;
    trace.vars = null;
    trace.environError = `${dir}/environ cannot be read: ${errorMessage(err)}`;
  }
  // The descriptors are read where they bear on the folders asked about, or to tell a process whose
  // environment alone is hidden from one the kernel hides altogether.
  if (options.under.length > 0 || trace.vars === null) {
    try {
      trace.held = heldInside(dir, options.under);
    } catch (err) {
      if (classify(err) === 'gone') return null;
      trace.uninspectable = `the open files of process ${pid} cannot be read: ${errorMessage(err)}`;
    }
  }
  return trace;
}

/** The real uid of `Uid:` in its status, else the owner of its folder. */
function uidOf(dir: string): number | null {
  try {
    const uid = /^Uid:\s+(\d+)/m.exec(readKernelFileSync(path.join(dir, 'status')))?.[1];
    if (uid !== undefined) return Number(uid);
  } catch {
    // Gone or hidden: its folder may still say whose it is.
  }
  try {
    return lstatOrNullSync(dir)?.uid ?? null;
  } catch {
    return null;
  }
}

function pick(environ: string, names: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of environ.split('\0')) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    const name = entry.slice(0, equals);
    if (names.includes(name) && !(name in found)) found[name] = entry.slice(equals + 1);
  }
  return found;
}

function heldInside(dir: string, under: readonly string[]): HeldFile[] {
  const held: HeldFile[] = [];
  const consider = (fd: string, link: string) => {
    let target: string;
    try {
      target = readlinkSync(link);
    } catch (err) {
      if (classify(err) === 'gone') return;
      throw err;
    }
    if (!target.startsWith('/')) return;
    const deleted = target.endsWith(DELETED);
    const named = deleted ? target.slice(0, -DELETED.length) : target;
    if (!under.some((folder) => isInside(folder, named))) return;
    const stats = statProcLinkSync(link);
    if (!stats) return;
    held.push({
      fd,
      path: named,
      deleted: deleted && stats.nlink === 0,
      bytes: stats.isFile() ? stats.size : 0,
      dev: stats.dev,
      ino: stats.ino,
    });
  };
  consider('cwd', path.join(dir, 'cwd'));
  const fdDir = path.join(dir, 'fd');
  for (const fd of readdirNamesSync(fdDir)) consider(fd, path.join(fdDir, fd));
  return held;
}
