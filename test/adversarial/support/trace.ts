import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { CLI, collect, type CliResult } from '../../helpers/cli.js';

/**
 * Kills a CLI pass at an exact point. The pass runs under strace, which holds it (a long
 * `delay_enter` or `delay_exit`) at the first system call of the given kinds that names one of the
 * given paths; once strace has logged that call (and, for a delay after the call, once its effect
 * is on disk) the whole process group, strace, node and any git child, gets SIGKILL, the way
 * systemd and Kubernetes stop a unit. Only the chosen calls stop in the tracer (seccomp-bpf), so
 * the pass runs at nearly full speed until then.
 */

export const RENAMES = ['rename', 'renameat', 'renameat2'];
export const UNLINKS = ['unlink', 'unlinkat', 'rmdir'];

export interface KillPoint {
  label: string;
  syscalls: string[];
  /** strace -P filters: absolute paths, or the bare names a pass uses relative to its cwd. */
  paths: string[];
  /** `enter`: killed before the call runs; `exit`: killed right after it ran. */
  at: 'enter' | 'exit';
  /** For `exit`: true once the call strace holds (its log line given) has taken effect. */
  done?: (held: string) => boolean;
  /** What the held call must look like (when `paths` cannot single it out). */
  held?: RegExp;
}

export interface KilledRun {
  /** The call strace stopped at, as strace wrote it. */
  stoppedAt: string | null;
  result: CliResult;
}

export function straceAvailable(): boolean {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

export async function runKilledAt(
  point: KillPoint,
  args: string[],
  env: NodeJS.ProcessEnv,
  log: string,
): Promise<KilledRun> {
  const filters = point.paths.flatMap((p) => ['-P', p]);
  const set = point.syscalls.join(',');
  const child = spawn(
    'strace',
    [
      '-f',
      '--seccomp-bpf',
      '-qq',
      '-e',
      'signal=none',
      '-s',
      '4096',
      '-y',
      '-o',
      log,
      '-e',
      `trace=${set}`,
      ...filters,
      '-e',
      `inject=${set}:delay_${point.at}=120000000`,
      process.execPath,
      CLI,
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const finished = collect(child, 120_000);
  let exited = false;
  void finished.then(() => (exited = true));
  const stoppedAt = await waitForStop(log, () => exited);
  if (stoppedAt !== null) {
    if (point.at === 'exit' && point.done)
      await until(() => (point.done as (held: string) => boolean)(stoppedAt), 10_000);
    killGroup(child);
  }
  return { stoppedAt, result: await finished };
}

/**
 * Runs a pass that strace holds for `holdMs` at the first matching call, and runs `meddle` while
 * it is held (the call not yet made, for `enter`); the pass then goes on to its end. Fails when
 * `meddle` outlasts the hold, since the race would then not be the one meant.
 */
export async function runHeldAt(
  point: KillPoint,
  holdMs: number,
  meddle: (held: string) => Promise<void> | void,
  args: string[],
  env: NodeJS.ProcessEnv,
  log: string,
): Promise<KilledRun> {
  const filters = point.paths.flatMap((p) => ['-P', p]);
  const set = point.syscalls.join(',');
  const child = spawn(
    'strace',
    [
      '-f',
      '--seccomp-bpf',
      '-qq',
      '-e',
      'signal=none',
      '-s',
      '4096',
      '-y',
      '-o',
      log,
      '-e',
      `trace=${set}`,
      ...filters,
      '-e',
      `inject=${set}:delay_${point.at}=${holdMs * 1000}`,
      process.execPath,
      CLI,
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const finished = collect(child, 120_000);
  let exited = false;
  void finished.then(() => (exited = true));
  const stoppedAt = await waitForStop(log, () => exited);
  if (stoppedAt !== null) {
    if (point.at === 'exit' && point.done)
      await until(() => (point.done as (held: string) => boolean)(stoppedAt), 10_000);
    const started = Date.now();
    await meddle(stoppedAt);
    if (Date.now() - started > holdMs * 0.8)
      throw new Error(`meddling took ${Date.now() - started} ms, too close to the ${holdMs} ms hold`);
  }
  return { stoppedAt, result: await finished };
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Waits until strace logged the call it holds; null when the pass ended without reaching it. */
async function waitForStop(log: string, exited: () => boolean): Promise<string | null> {
  for (;;) {
    const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
    const line = text.split('\n').find((entry) => entry.trim() !== '');
    if (line) return line;
    if (exited()) return null;
    await sleep(5);
  }
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('the held system call never took effect');
    await sleep(5);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface TracedRename {
  pid: number;
  from: string;
  to: string;
}

/** Runs a whole pass under strace and answers every rename it made, in order, as written. */
export async function traceRenames(
  args: string[],
  env: NodeJS.ProcessEnv,
  log: string,
): Promise<{ renames: TracedRename[]; result: CliResult }> {
  const child = spawn(
    'strace',
    [
      '-f',
      '--seccomp-bpf',
      '-qq',
      '-s',
      '4096',
      '-y',
      '-o',
      log,
      '-e',
      `trace=${RENAMES.join(',')}`,
      process.execPath,
      CLI,
      ...args,
    ],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const result = await collect(child, 120_000);
  const renames: TracedRename[] = [];
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (!/\)\s+= 0$/.test(line)) continue;
    const parsed = parseRename(line);
    if (parsed) renames.push(parsed);
  }
  return { renames, result };
}

const STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
const DIRFD = String.raw`(AT_FDCWD|\d+<[^>]*>)`;
const RENAME_CALL = new RegExp(String.raw`^(\d+)\s+rename\(${STRING}, ${STRING}`);
const RENAMEAT_CALL = new RegExp(String.raw`^(\d+)\s+renameat2?\(${DIRFD}, ${STRING}, ${DIRFD}, ${STRING}`);

/** The pid and the two paths of a rename strace logged (whole, or held at its entry), as written. */
function parseRename(line: string): TracedRename | null {
  const plain = RENAME_CALL.exec(line);
  if (plain) return { pid: Number(plain[1]), from: unescapeC(plain[2] as string), to: unescapeC(plain[3] as string) };
  const at = RENAMEAT_CALL.exec(line);
  if (!at) return null;
  const join = (dirfd: string, name: string) => {
    const dir = /^\d+<(.*)>$/.exec(dirfd)?.[1];
    return dir && !path.isAbsolute(name) ? path.join(dir, name) : name;
  };
  return {
    pid: Number(at[1]),
    from: join(at[2] as string, unescapeC(at[3] as string)),
    to: join(at[4] as string, unescapeC(at[5] as string)),
  };
}

/** For a held rename: true once it has run (`from` gone, `to` there), relative paths read from the process's cwd. */
export function renameDone(held: string): boolean {
  const call = parseRename(held);
  if (!call) throw new Error(`not a rename: ${held}`);
  const cwd = cwdOf(call.pid);
  if (cwd === null) return false;
  const from = path.resolve(cwd, call.from);
  const to = path.resolve(cwd, call.to);
  return exists(to) && !exists(from);
}
/** strace prints C string literals: \n, \t, \", \\, \xNN and octal escapes. */
function unescapeC(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const next = text[i + 1] as string;
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, '\\': 92 };
    if (next in simple) {
      bytes.push(simple[next] as number);
      i += 1;
    } else if (next === 'x') {
      bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else {
      const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1))?.[0] ?? '0';
      bytes.push(parseInt(octal, 8));
      i += octal.length;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The working directory of a live process, for resolving the relative paths it used. */
function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}
