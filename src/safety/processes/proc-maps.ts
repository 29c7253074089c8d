import { parseHexDevice } from '../fs/device-number.js';

/** A file a process has mapped: its identity, and its path as /proc shows it (null for none). */
export interface Mapping {
  dev: number;
  ino: number;
  path: string | null;
}

/**
 * One line of /proc/<pid>/maps (`start-end perms offset major:minor inode    path`), or null for
 * an anonymous mapping (inode 0) or a line that is not of that form. The path, when there is one,
 * keeps the kernel's ` (deleted)` mark; it is the path in the process's own mount namespace.
 */
export function parseMapsLine(line: string): Mapping | null {
  const permsEnd = line.indexOf(' ');
  const offsetEnd = line.indexOf(' ', permsEnd + 1);
  const deviceStart = line.indexOf(' ', offsetEnd + 1) + 1;
  const deviceEnd = line.indexOf(' ', deviceStart);
  if (permsEnd <= 0 || offsetEnd <= 0 || deviceStart <= 0 || deviceEnd <= 0) return null;
  let inodeEnd = line.indexOf(' ', deviceEnd + 1);
  if (inodeEnd === -1) inodeEnd = line.length;
  const inodeText = line.slice(deviceEnd + 1, inodeEnd);
  if (inodeText === '0' || !/^\d+$/.test(inodeText)) return null;
  const dev = parseHexDevice(line.slice(deviceStart, deviceEnd));
  if (Number.isNaN(dev)) return null;
  const slash = line.indexOf('/', inodeEnd);
  return { dev, ino: Number(inodeText), path: slash === -1 ? null : line.slice(slash) };
}

/** Every file mapped in a maps text, each run of lines for the same file (its segments) once. */
export function mappedFiles(text: string): Mapping[] {
  const files: Mapping[] = [];
  let last: Mapping | null = null;
  for (const line of text.split('\n')) {
    const mapping = parseMapsLine(line);
    if (!mapping) continue;
    if (last && last.ino === mapping.ino && last.dev === mapping.dev && last.path === mapping.path) continue;
    files.push(mapping);
    last = mapping;
  }
  return files;
}
