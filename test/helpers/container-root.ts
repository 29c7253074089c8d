import { execFileSync, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { spawnLiving, waitFor } from './processes.js';
import { tempDir } from './temp.js';

/** Quotes a path for `sh -c`. */
const quoted = (p: string): string => `'${p.replace(/'/g, `'\\''`)}'`;

/** The top-level folders of this machine a program needs to run: bound into a container's root, or linked as here. */
const SYSTEM = ['usr', 'bin', 'lib', 'lib64', 'sbin', 'dev'];

/**
 * A container's root folder, as a plain folder of this machine: `/usr` and `/dev` are bound into it
 * when a container starts, the top-level links of a merged /usr (`/bin -> usr/bin`) are made the
 * same, and `files` are written inside. Answers its path.
 */
export function containerRoot(files: { links?: Record<string, string>; folders?: string[] } = {}): string {
  const root = tempDir('aj-container-root-');
  for (const name of SYSTEM) {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(`/${name}`);
    } catch {
      continue;
    }
    if (stats.isSymbolicLink()) symlinkSync(readlinkSync(`/${name}`), path.join(root, name));
    else mkdirSync(path.join(root, name));
  }
  for (const folder of files.folders ?? []) mkdirSync(path.join(root, folder), { recursive: true });
  for (const [link, target] of Object.entries(files.links ?? {})) symlinkSync(target, path.join(root, link));
  return root;
}

/**
 * A real "container": a process in a mount and a PID namespace of its own (`unshare --mount --pid
 * --fork`), chrooted into `root` with this machine's system folders and each of `binds` (a folder
 * of this machine at a path inside) bound into it, running `command` with exactly `env`. Its
 * mounts are private and die with it. Answers the `unshare` process; killed after the test.
 */
export function startContainer(
  root: string,
  binds: Record<string, string>,
  env: Record<string, string>,
  command: string[],
): ChildProcess {
  const folders = SYSTEM.filter((name) => lstatSync(path.join(root, name), { throwIfNoEntry: false })?.isDirectory());
  const mounts = [
    ...folders.map((name) => [`/${name}`, path.join(root, name)]),
    ...Object.entries(binds).map(([inside, from]) => [from, path.join(root, inside)]),
  ];
  const script = [
    'set -e',
    ...mounts.map(([from, to]) => `mount --bind ${quoted(from as string)} ${quoted(to as string)}`),
    `chroot ${quoted(root)} /usr/bin/env -i ${Object.entries(env)
      .map(([name, value]) => quoted(`${name}=${value}`))
      .join(' ')} ${command.map(quoted).join(' ')}`,
  ].join('\n');
  return spawnLiving('unshare', ['--mount', '--pid', '--fork', '--kill-child', 'sh', '-c', script]);
}

/** The pids below `pid` (children, theirs, …), as this machine's /proc numbers them. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const at = pending.pop() as number;
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${at}/task/${at}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      // Gone meanwhile.
    }
    found.push(...children);
    pending.push(...children);
  }
  return found;
}

/** The process below `ancestor` whose command line `matches`, once there is one. */
export async function processBelow(ancestor: ChildProcess, matches: (argv: string[]) => boolean): Promise<number> {
  let found = 0;
  await waitFor(() => {
    if (ancestor.exitCode !== null) throw new Error(`the container exited ${ancestor.exitCode}`);
    found = descendantsOf(ancestor.pid as number).find((pid) => matches(argvOf(pid))) ?? 0;
    return found > 0;
  });
  return found;
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** A process's state letter (`S`, `T` stopped, `D`, `Z`), or null once it is gone. */
export function stateOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

const FREEZER = '/sys/fs/cgroup/freezer';

/**
 * Freezes a process as `docker pause` does, with the cgroup v1 freezer: a cgroup of its own, the
 * process moved in, `FROZEN` written to its `freezer.state`. `thaw` lets it go on, moves it back
 * and removes the cgroup.
 */
export async function freeze(pid: number): Promise<{ thaw(): Promise<void> }> {
  const cgroup = path.join(FREEZER, `aj-test-${process.pid}-${pid}`);
  mkdirSync(cgroup);
  execFileSync('sh', ['-c', `echo ${pid} > ${quoted(path.join(cgroup, 'cgroup.procs'))}`]);
  execFileSync('sh', ['-c', `echo FROZEN > ${quoted(path.join(cgroup, 'freezer.state'))}`]);
  await waitFor(() => readFileSync(path.join(cgroup, 'freezer.state'), 'utf8').trim() === 'FROZEN');
  let thawed = false;
  const thaw = async () => {
    if (thawed) return;
    thawed = true;
    execFileSync('sh', ['-c', `echo THAWED > ${quoted(path.join(cgroup, 'freezer.state'))}`]);
    await waitFor(() => readFileSync(path.join(cgroup, 'freezer.state'), 'utf8').trim() === 'THAWED');
    for (const member of readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean))
      execFileSync('sh', ['-c', `echo ${member} > ${quoted(path.join(FREEZER, 'cgroup.procs'))} || true`]);
    await waitFor(() => readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').trim() === '');
    execFileSync('rmdir', [cgroup]);
  };
  frozen.push(thaw);
  return { thaw };
}

const frozen: Array<() => Promise<void>> = [];

// Whatever a test left frozen is thawed after it: a frozen process dies of SIGKILL only once thawed.
afterEach(async () => {
  for (const thaw of frozen.splice(0)) await thaw().catch(() => undefined);
});
