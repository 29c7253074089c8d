import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { collect } from '../../helpers/cli.js';

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** The command line that runs a CLI: a `.js` entry point goes through this Node.js. */
function commandOf(bin: string, args: string[]): [string, string[]] {
  return bin.endsWith('.js') ? [process.execPath, [bin, ...args]] : [bin, args];
}

/** Runs a CLI to its end; throws with its own output when it fails. */
export async function runToEnd(bin: string, args: string[], options: RunOptions): Promise<string> {
  const [command, argv] = commandOf(bin, args);
  const child = spawn(command, argv, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const result = await collect(child, options.timeoutMs ?? 120_000);
  if (result.code !== 0) {
    throw new Error(
      `${bin} ${args.join(' ')} in ${options.cwd} exited ${result.code ?? result.signal}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
    );
  }
  return result.stdout;
}

/** Starts a CLI and leaves it running; its output is kept for the error message of a later wait. */
export function startRunning(bin: string, args: string[], options: RunOptions): ChildProcess & { output(): string } {
  const [command, argv] = commandOf(bin, args);
  const child = spawn(command, argv, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  child.on('exit', () => clearTimeout(timer));
  return Object.assign(child, { output: () => output.slice(-4000) });
}

/** Kills with SIGKILL and waits until the kernel has reaped it. */
export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export async function waitUntil<T>(
  what: string,
  probe: () => T | null | undefined | false,
  options: { timeoutMs?: number; everyMs?: number; context?: () => string } = {},
): Promise<T> {
  const until = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > until)
      throw new Error(`timed out waiting for ${what}${options.context ? `\n${options.context()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 50));
  }
}

/** The pids of the processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(name));
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

/** `pid` and everything below it. */
export function treeOf(pid: number): number[] {
  return [pid, ...childrenOf(pid).flatMap(treeOf)];
}

/** The process's command line, its arguments joined by spaces; empty once it is gone. */
export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** The one-letter state of /proc/<pid>/stat (`R`, `S`, `Z`…), null once it is gone. */
export function stateOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}
