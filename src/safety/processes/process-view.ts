import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import { readdirNamesSync } from '../fs/list.js';
import { readKernelFileSync } from '../fs/read.js';
import { readlinkSync, statProcLinkSync } from '../fs/stat.js';
import { mappedFiles } from './proc-maps.js';
import { statFields } from './stat-fields.js';

const PF_KTHREAD = 0x00200000;

/** A file a process holds open although no folder lists it any more: its blocks stay in use. */
interface OpenDeleted {
  /** The descriptor's number. */
  fd: string;
  /** The path it had, as the process's own mount namespace names it. */
  path: string;
  bytes: number;
  dev: number;
  ino: number;
}

/** What one process is and holds, read once per pass by the scan and shared with every provider. */
export interface ProcessView {
  /** Its command name (`comm`, what /proc/<pid>/stat shows in parentheses). */
  command: string;
  /** Its state letter (`R`, `S`, `D`, `T` stopped, `t` traced): a stopped or frozen process is alive. */
  state: string;
  /** Field 22 of its stat: with the pid, who it is. */
  start: string | null;
  /** Its real uid, or null where /proc does not say. */
  uid: number | null;
  /** Its executable as /proc names it, ` (deleted)` cut; null where it cannot be read. */
  exe: string | null;
  /** Its command line, or null where it cannot be read. */
  argv: string[] | null;
  /** The variables asked about that its environment carries; null where the environment cannot be read. */
  vars: Readonly<Record<string, string>> | null;
  /** Why its environment cannot be read. */
  environError?: string;
  /** Its working directory as /proc shows it, in its own mount namespace. */
  cwd: string;
  /** Paths of its working directory, root, deleted open files and mappings, as /proc shows them, ` (deleted)` cut. */
  paths: string[];
  /** The identities of its working directory, root, open files and mappings, flat: dev, ino, dev, ino, … */
  identities: number[];
  /** Files it holds open that are deleted. */
  openDeleted: OpenDeleted[];
  /** Its mount namespace (`mnt:[4026531841]`), or null where /proc shows none. */
  mountNamespace: string | null;
}

export type Inspection = ProcessView | 'gone' | 'denied' | 'kernel';

/**
 * Looks at one process in /proc, once for the whole pass. The working directory and root are read
 * as a path and stat()ed through the link for their identity. Each descriptor is stat()ed through
 * its link, which follows it to the file in whatever namespace: one call that tells the identity
 * and, by its link count, whether the file was deleted; only a deleted file's path is read (that
 * path is all that still names it). Sockets are left out. Mappings come with their identity in
 * `maps`. The environment keeps only the variables asked about (each tool's own, rule 27).
 */
export function inspectProcess(dir: string, variables: ReadonlySet<string>): Inspection {
  let command: string;
  let state: string;
  let start: string | null;
  try {
    const stat = readKernelFileSync(path.join(dir, 'stat'));
    command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = statFields(stat);
    const flags = Number(fields[6]);
    if ((flags & PF_KTHREAD) !== 0) return 'kernel';
    state = fields[0] ?? '';
    if (state === 'Z' || state === 'X') return 'gone';
    start = fields[19] !== undefined && /^\d+$/.test(fields[19]) ? fields[19] : null;
  } catch (err) {
    return classify(err);
  }
  const view: ProcessView = {
    command,
    state,
    start,
    uid: realUid(dir),
    exe: null,
    argv: null,
    vars: null,
    cwd: '',
    paths: [],
    identities: [],
    openDeleted: [],
    mountNamespace: null,
  };
  try {
    for (const link of ['cwd', 'root']) {
      const where = path.join(dir, link);
      const target = stripDeleted(readlinkSync(where));
      if (link === 'cwd') view.cwd = target;
      view.paths.push(target);
      const stats = statProcLinkSync(where);
      if (!stats) return 'gone';
      view.identities.push(stats.dev, stats.ino);
    }
    const fdDir = path.join(dir, 'fd');
    for (const fd of readdirNamesSync(fdDir)) {
      const link = `${fdDir}/${fd}`;
      const stats = statProcLinkSync(link);
      if (!stats || stats.isSocket()) continue;
      view.identities.push(stats.dev, stats.ino);
      if (stats.nlink === 0) {
        const target = readLinkIfPresent(link);
        if (!target?.startsWith('/')) continue;
        const named = stripDeleted(target);
        view.paths.push(named);
        view.openDeleted.push({
          fd,
          path: named,
          bytes: stats.isFile() ? stats.size : 0,
          dev: stats.dev,
          ino: stats.ino,
        });
      }
    }
    for (const mapping of mappedFiles(readKernelFileSync(path.join(dir, 'maps')))) {
      view.identities.push(mapping.dev, mapping.ino);
      if (mapping.path) view.paths.push(stripDeleted(mapping.path));
    }
    view.mountNamespace = readLinkIfPresent(path.join(dir, 'ns', 'mnt'));
  } catch (err) {
    return classify(err);
  }
  view.exe = readQuietly(() => {
    const exe = readLinkIfPresent(path.join(dir, 'exe'));
    return exe === null ? null : stripDeleted(exe);
  });
  view.argv = readQuietly(() => nulSeparated(readKernelFileSync(path.join(dir, 'cmdline'))));
  try {
    view.vars = pick(readKernelFileSync(path.join(dir, 'environ')), variables);
  } catch (err) {
    if (classify(err) === 'gone') return 'gone';
    view.environError = `${dir}/environ cannot be read: ${errorMessage(err)}`;
  }
  return view;
}

/** The real uid of `Uid:` in its status, or null where it cannot be read. */
export function realUid(dir: string): number | null {
  try {
    const uid = /^Uid:\s+(\d+)/m.exec(readKernelFileSync(path.join(dir, 'status')))?.[1];
    return uid === undefined ? null : Number(uid);
  } catch {
    return null;
  }
}

function pick(environ: string, names: ReadonlySet<string>): Record<string, string> {
  const found: Record<string, string> = {};
  if (names.size === 0) return found;
  for (const entry of environ.split('\0')) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    const name = entry.slice(0, equals);
    if (names.has(name) && !(name in found)) found[name] = entry.slice(equals + 1);
  }
  return found;
}

function nulSeparated(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}

function readQuietly<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

export function readLinkIfPresent(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

export function stripDeleted(p: string): string {
  return p.endsWith(' (deleted)') ? p.slice(0, -' (deleted)'.length) : p;
}

export function classify(err: unknown): 'gone' | 'denied' {
  const code = errorCode(err);
  if (code === 'ENOENT' || code === 'ESRCH') return 'gone';
  return 'denied';
}
