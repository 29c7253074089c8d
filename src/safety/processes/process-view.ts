import path from 'node:path';
import { errorCode } from '../../core/errors.js';
import { readdirNamesSync } from '../fs/list.js';
import { readKernelFileSync } from '../fs/read.js';
import { readlinkSync, statProcLinkSync } from '../fs/stat.js';
import { mappedFiles } from './proc-maps.js';

const PF_KTHREAD = 0x00200000;

/** What one process holds: its working directory, root, open files and mapped files. */
export interface ProcessView {
  /** Its command name (`comm`, what /proc/<pid>/stat shows in parentheses). */
  command: string;
  /** Its working directory as /proc shows it. */
  cwd: string;
  /** Their paths as /proc shows them (in the process's own mount namespace), ` (deleted)` cut. */
  paths: string[];
  /** Their identities, flat: dev, ino, dev, ino, … */
  identities: number[];
  /** Its mount namespace (`mnt:[4026531841]`), or null where /proc shows none. */
  mountNamespace: string | null;
}

export type Inspection = ProcessView | 'gone' | 'denied' | 'kernel';

/**
 * Looks at one process in /proc. The working directory and root are read as a path and stat()ed
 * through the link for their identity. Each descriptor is stat()ed through its link, which
 * follows it to the file in whatever namespace: one call that tells the identity and, by its
 * link count, whether the file was deleted; only a deleted file's path is read (that path is all
 * that still names it). Sockets are left out. Mappings come with their identity in `maps`.
 */
export function inspectProcess(dir: string): Inspection {
  let command: string;
  try {
    const stat = readKernelFileSync(path.join(dir, 'stat'));
    // Field 9 (flags) follows the command name, which is in parentheses and may hold spaces.
    const close = stat.lastIndexOf(')');
    command = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const flags = Number(fields[6]);
    if ((flags & PF_KTHREAD) !== 0) return 'kernel';
    if (fields[0] === 'Z') return 'gone';
  } catch (err) {
    return classify(err);
  }
  const view: ProcessView = { command, cwd: '', paths: [], identities: [], mountNamespace: null };
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
        if (target?.startsWith('/')) view.paths.push(stripDeleted(target));
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
  return view;
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
