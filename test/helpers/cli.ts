import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (`npm run build` first) as a real child process. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    collect(child, options.timeoutMs ?? 60_000).then(resolve, reject);
  });
}

export function collect(child: ChildProcess, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * An environment whose home, state folder and config (`AGENT_JANITOR_CONFIG`) are in `dir`, so that
 * a command line that should have been refused, but is not, runs its pass there and nowhere else.
 */
export function enclosedEnv(dir: string): NodeJS.ProcessEnv {
  const home = path.join(dir, 'home');
  const config = path.join(dir, 'enclosed.yaml');
  mkdirSync(home, { recursive: true });
  writeFileSync(config, `homes: [${JSON.stringify(home)}]\nreportDir: ${JSON.stringify(path.join(dir, 'report'))}\n`);
  return { HOME: home, XDG_STATE_HOME: path.join(dir, 'state'), AGENT_JANITOR_CONFIG: config };
}
