import path from 'node:path';
import type { BlindReason } from '../../model/types.js';
import { errorCode, errorMessage } from '../../model/errors.js';
import { parseDecimalDevice } from '../fs/device-number.js';
import { fileSystemTypeSync, readlinkSync, realpathSync, statProcLinkSync } from '../fs/stat.js';
import { readKernelFileSync } from '../fs/read.js';
import { isStrictlyInside } from '../inside.js';
import { unescapeMountField } from './mountinfo.js';

/** The kernel's PROC_SUPER_MAGIC: what statfs() says of a procfs, and of nothing else. */
const PROC_SUPER_MAGIC = 0x9fa0;
/** PROC_PID_INIT_INO: the initial PID namespace (a host, or a pod with hostPID). */
const INITIAL_PID_NAMESPACE = 'pid:[4026531836]';
/** PROC_USER_INIT_INO: a capability counts over the host's processes only in this user namespace. */
const INITIAL_USER_NAMESPACE = 'user:[4026531837]';
const CAP_SYS_PTRACE = 19n;

export type Visibility = { visible: true } | { visible: false; because: BlindReason; why: string };

/**
 * Rule 19: whether the processes a scan of `procRoot` finds are all the processes there are. Each
 * test runs only once the ones before it passed, and the first that fails is the answer: a
 * procfs, whose `self` is this very process, in the initial PID namespace, mounted with no option
 * that hides processes from this pass and with nothing mounted over a process's folder.
 */
export function procVisibility(procRoot: string): Visibility {
  return procfs(procRoot) ?? self(procRoot) ?? pidNamespace(procRoot) ?? mount(procRoot) ?? { visible: true };
}

type Blind = Extract<Visibility, { visible: false }>;
const blind = (because: BlindReason, why: string): Blind => ({ visible: false, because, why });

function procfs(procRoot: string): Blind | null {
  let type: number;
  try {
    type = fileSystemTypeSync(procRoot);
  } catch (err) {
    return blind('not-procfs', `${procRoot} cannot be looked at (${errorMessage(err)}), so no process can be seen`);
  }
  if (type === PROC_SUPER_MAGIC) return null;
  return blind(
    'not-procfs',
    `${procRoot} is not a procfs (file system type 0x${type.toString(16)}): an empty folder or another file system shows no process`,
  );
}

function self(procRoot: string): Blind | null {
  let target: string;
  try {
    target = readlinkSync(path.join(procRoot, 'self'));
  } catch (err) {
    // The kernel gives a process no `self` in a procfs of a PID namespace it is not in.
    return blind(
      'self-mismatch',
      `${procRoot}/self names no process here (${errorCode(err) ?? errorMessage(err)}): ${procRoot} belongs to another PID namespace (a container's, entered with nsenter --mount)`,
    );
  }
  if (target !== String(process.pid))
    return blind(
      'self-mismatch',
      `${procRoot}/self is ${target}, not this process (${process.pid}): ${procRoot} belongs to another PID namespace`,
    );
  // Everything read next (the namespace link, mountinfo, status) is in this process's own folder.
  return procfsBelow(procRoot, target);
}

function procfsBelow(procRoot: string, name: string): Blind | null {
  const own = path.join(procRoot, name);
  let type: number;
  try {
    type = fileSystemTypeSync(own);
  } catch (err) {
    return blind('self-mismatch', `${own} cannot be looked at (${errorCode(err) ?? errorMessage(err)})`);
  }
  if (type === PROC_SUPER_MAGIC) return null;
  return blind('proc-overmounted', `a file system is mounted at ${own}, over this process's own folder`);
}

function pidNamespace(procRoot: string): Blind | null {
  let namespace: string;
  try {
    namespace = readlinkSync(path.join(procRoot, 'self', 'ns', 'pid'));
  } catch (err) {
    return blind('own-pid-namespace', `the PID namespace of this process cannot be read (${errorMessage(err)})`);
  }
  if (namespace === INITIAL_PID_NAMESPACE) return null;
  return blind(
    'own-pid-namespace',
    `this process runs in a PID namespace of its own (${namespace}), so the host's processes are hidden (use hostPID)`,
  );
}

/** One line of mountinfo, with the fields after its ` - ` separator. */
interface ProcMount {
  id: number;
  parent: number;
  mountPoint: string;
  dev: number;
  fsType: string;
  options: string[];
}

function mount(procRoot: string): Blind | null {
  let mounts: ProcMount[];
  let canonical: string;
  let dev: number;
  try {
    mounts = parseMounts(readKernelFileSync(path.join(procRoot, 'self', 'mountinfo')));
    canonical = realpathSync(procRoot);
    // The device of the folder itself: a path through another namespace's root (`/proc/<pid>/root/proc`)
    // resolves to a name of ours that is another mount.
    dev = statProcLinkSync(procRoot)?.dev ?? Number.NaN;
  } catch (err) {
    return blind('proc-mount-unknown', `the mounts of this process cannot be read (${errorMessage(err)})`);
  }
  // The last mount listed at the mount point is the one on top; the device tells it apart from one below.
  const own = mounts.findLast((each) => each.mountPoint === canonical && each.dev === dev && each.fsType === 'proc');
  if (!own)
    return blind(
      'proc-mount-unknown',
      `no procfs of the device of ${procRoot} is among the mounts of this process at ${canonical}, so its mount options are unknown`,
    );
  return hiding(canonical, own.options) ?? overmounted(own, mounts);
}

function parseMounts(text: string): ProcMount[] {
  const mounts: ProcMount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    // The optional fields before the separator vary in number: find the separator itself.
    const separator = fields.indexOf('-', 6);
    if (fields.length < 5 || separator < 0) continue;
    mounts.push({
      id: Number(fields[0]),
      parent: Number(fields[1]),
      mountPoint: unescapeMountField(fields[4] as string),
      dev: parseDecimalDevice(fields[2] as string),
      fsType: fields[separator + 1] ?? '',
      options: (fields[separator + 3] ?? '').split(','),
    });
  }
  return mounts;
}

/**
 * A mount option that hides processes from this pass. `hidepid` hides (noaccess: 1) or removes
 * from the listing (invisible: 2, ptraceable: 4) every process the kernel's check refuses, and that
 * check lets through, for 1 and 2, a member of the `gid=` group (root's group when none is named).
 * Beyond the group: with noaccess every process is still listed, so CAP_SYS_PTRACE (in the initial
 * user namespace) reads each and one an LSM refuses is counted uninspectable; with invisible or
 * ptraceable an LSM's refusal would remove the process unseen, so no capability is trusted there.
 * `subset` hides no process on today's kernels, but the contract counts it as hiding, and an
 * unknown value of either option could mean anything: all of these are blind.
 */
function hiding(mountPoint: string, options: readonly string[]): Blind | null {
  const value = (name: string) => options.findLast((option) => option.startsWith(`${name}=`))?.slice(name.length + 1);
  const subset = value('subset');
  if (subset !== undefined)
    return blind('subset', `${mountPoint} is mounted with subset=${subset}, which shows only part of it`);
  const hidepid = value('hidepid');
  if (hidepid === undefined || hidepid === '0' || hidepid === 'off') return null;
  const group = Number(value('gid') ?? '0');
  const noaccess = hidepid === '1' || hidepid === 'noaccess';
  const invisible = hidepid === '2' || hidepid === 'invisible';
  if ((noaccess || invisible) && inGroup(mountPoint, group)) return null;
  if (noaccess && hasPtraceOverAll(mountPoint)) return null;
  return blind(
    'hidepid',
    `${mountPoint} is mounted with hidepid=${hidepid}, which hides other users' processes from this pass` +
      (noaccess || invisible ? ` (it is not in the group gid=${group} lets through)` : ''),
  );
}

/** The kernel's in_group_p: the pass's effective or a supplementary group, compared as the host numbers them. */
function inGroup(procRoot: string, group: number): boolean {
  if (!inInitialUserNamespace(procRoot)) return false;
  return process.getegid?.() === group || (process.getgroups?.() ?? []).includes(group);
}

function hasPtraceOverAll(procRoot: string): boolean {
  if (!inInitialUserNamespace(procRoot)) return false;
  try {
    const status = readKernelFileSync(path.join(procRoot, 'self', 'status'));
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    return effective !== undefined && ((BigInt(`0x${effective}`) >> CAP_SYS_PTRACE) & 1n) === 1n;
  } catch {
    return false;
  }
}

function inInitialUserNamespace(procRoot: string): boolean {
  try {
    return readlinkSync(path.join(procRoot, 'self', 'ns', 'user')) === INITIAL_USER_NAMESPACE;
  } catch {
    return false;
  }
}

/** A file system mounted on the procfs over a process's folder (or `self`) shows something else in its place. */
function overmounted(procfs: ProcMount, mounts: readonly ProcMount[]): Blind | null {
  for (const each of mounts) {
    if (each.parent !== procfs.id || !isStrictlyInside(procfs.mountPoint, each.mountPoint)) continue;
    const first = path.relative(procfs.mountPoint, each.mountPoint).split(path.sep)[0] as string;
    if (/^\d+$/.test(first) || first === 'self' || first === 'thread-self')
      return blind('proc-overmounted', `a file system is mounted at ${each.mountPoint}, over a process's folder`);
  }
  return null;
}
