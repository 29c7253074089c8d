import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import { readKernelFileSync } from '../fs/read.js';
import { readlinkSync } from '../fs/stat.js';
import { readFileOrNullSync } from '../fs/read.js';
import { statFields } from './stat-fields.js';

/**
 * Who a pid is right now: gone (the kernel says so), running since a moment (field 22 of
 * /proc/<pid>/stat, in clock ticks since boot, as tools write it to tell a process from a later
 * one with its pid), or unknown (its stat cannot be read, for a reason that is not its end).
 */
export type ProcessStart = { state: 'gone' } | { state: 'running'; start: string } | { state: 'unknown'; why: string };

export function processStart(pid: number, procRoot = '/proc'): ProcessStart {
  if (!Number.isInteger(pid) || pid <= 0) return { state: 'gone' };
  let stat: string;
  try {
    stat = readKernelFileSync(path.join(procRoot, String(pid), 'stat'));
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT' || code === 'ESRCH') return { state: 'gone' };
    return { state: 'unknown', why: `${procRoot}/${pid}/stat cannot be read: ${errorMessage(err)}` };
  }
  return startOfStat(stat) ?? { state: 'unknown', why: `${procRoot}/${pid}/stat has no start time` };
}

/** The state and start time in the text of a /proc/<pid>/stat: a zombie has ended. */
function startOfStat(stat: string): ProcessStart | null {
  const fields = statFields(stat);
  if (fields[0] === 'Z' || fields[0] === 'X') return { state: 'gone' };
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? { state: 'running', start } : null;
}

/**
 * This machine's and this PID namespace's name, as tools that record a pid write it beside:
 * `linux:<machine-id>:pid:[<namespace inode>]`. Throws where either cannot be read: a pid of a
 * record can then be matched to no process here.
 */
export function ownPidDomain(procRoot = '/proc'): string {
  const machineId = ['/etc/machine-id', '/var/lib/dbus/machine-id']
    .map((file) => {
      try {
        return readFileOrNullSync(file)?.trim() ?? '';
      } catch {
        return '';
      }
    })
    .find((id) => id !== '');
  if (!machineId) throw new Error('the machine id cannot be read (/etc/machine-id, /var/lib/dbus/machine-id)');
  let namespace: string;
  try {
    namespace = readlinkSync(path.join(procRoot, 'self', 'ns', 'pid'));
  } catch (err) {
    throw new Error(`the PID namespace of this process cannot be read: ${errorMessage(err)}`);
  }
  return `linux:${machineId}:${namespace}`;
}
