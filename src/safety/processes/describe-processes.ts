import path from 'node:path';
import { readKernelFileSync } from '../fs/read.js';
import type { ProcessDescription } from './process-description.js';
import { whose } from './user-names.js';

const COMMAND_CHARS = 80;

/**
 * What `/proc/<pid>` says of each process: its command line and real user. Read only for the few
 * processes a refusal names, never for the whole scan. A process gone meanwhile is described by its
 * pid alone.
 */
export function describeProcesses(procRoot: string, pids: readonly number[]): ProcessDescription[] {
  return pids.map((pid) => describeProcess(procRoot, pid));
}

function describeProcess(procRoot: string, pid: number): ProcessDescription {
  const dir = path.join(procRoot, String(pid));
  return { pid, command: commandOf(dir), user: userOf(dir) };
}

function commandOf(dir: string): string {
  const line = readOrEmpty(path.join(dir, 'cmdline')).replace(/\0+$/, '').replaceAll('\0', ' ').trim();
  if (line !== '') return line.length > COMMAND_CHARS ? `${line.slice(0, COMMAND_CHARS - 1)}…` : line;
  const comm = readOrEmpty(path.join(dir, 'comm')).trim();
  return comm === '' ? '?' : `[${comm}]`;
}

function userOf(dir: string): string | null {
  const uid = /^Uid:\s+(\d+)/m.exec(readOrEmpty(path.join(dir, 'status')))?.[1];
  return uid === undefined ? null : whose(Number(uid));
}

function readOrEmpty(file: string): string {
  try {
    return readKernelFileSync(file);
  } catch {
    return '';
  }
}
