import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collect } from '../../helpers/cli.js';
import { installPackage } from '../../support/real-clis/npm-install.js';

/**
 * The real Cline CLIs from npm, installed at test time into cache folders outside the repository
 * (never into package.json), scripts off (nothing is downloaded from anywhere but npm):
 *
 * - `cline@1.0.10`: a Go CLI and host (`bin/cline-linux-amd64`, `bin/cline-host-linux-amd64`) that
 *   drive Cline's own core (`cline-core.js`, the VS Code extension's core 3.52.0 on the standalone
 *   host) over gRPC. It makes real shadow-git checkpoints in `~/.cline/data`. Later CLIs (2.x) turn
 *   checkpoints off in the standalone host, and 3.x is Cline 4, which has none.
 * - Cline 4's CLI, `cline@3.0.65`: its compiled binary alone, `@cline/cli-linux-x64@3.0.65` (the
 *   `cline` package only adds a resolver script that finds it).
 */
export const CLINE3 = { spec: 'cline@1.0.10', name: 'cline', core: '3.52.0' } as const;
export const CLINE4 = {
  spec: '@cline/cli-linux-x64@3.0.65',
  name: '@cline/cli-linux-x64',
  cli: 'cline@3.0.65',
} as const;

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Install {
  /** The installed package folder (`node_modules/<name>`), or null. */
  dir: string | null;
  why?: string;
}

function cacheRoot(): string {
  return process.env.AGENT_JANITOR_CLINE_CLI_CACHE ?? path.join(os.tmpdir(), 'agent-janitor-cline-cli');
}

/** Installs a package spec into `<cache>/<spec>` once; later runs reuse it. */
async function install(spec: string, name: string, check: (dir: string) => string | null): Promise<Install> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return {
      dir: null,
      why: `the Cline CLI binaries are tested on linux x64 only, this is ${process.platform} ${process.arch}`,
    };
  }
  const cache = path.join(cacheRoot(), spec.replace(/[@/]/g, '_'));
  const dir = path.join(cache, 'node_modules', ...name.split('/'));
  if (existsSync(dir) && check(dir) === null) return { dir };
  mkdirSync(cacheRoot(), { recursive: true });
  const why = await installPackage({
    spec,
    cache,
    expect: path.join('node_modules', ...name.split('/')),
    timeoutMs: 600_000,
    replace: true,
  });
  if (why !== null) return { dir: null, why };
  const problem = check(dir);
  return problem === null ? { dir } : { dir: null, why: problem };
}

/**
 * Cline 3's CLI. Its core bundles better-sqlite3 (for its lock database) without the compiled
 * addon: npm would download it from the package's release page, which this machine cannot reach,
 * so the addon this checkout's own `npm ci` built for the same Node.js is put in its place.
 */
export async function installCline3(): Promise<Install> {
  const installed = await install(CLINE3.spec, CLINE3.name, (dir) =>
    existsSync(path.join(dir, 'bin', 'cline-linux-amd64')) && existsSync(path.join(dir, 'cline-core.js'))
      ? null
      : `${dir} has no bin/cline-linux-amd64 or cline-core.js`,
  );
  if (!installed.dir) return installed;
  const addon = path.join(installed.dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(addon)) {
    const ours = path.join(REPO, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    if (!existsSync(ours)) return { dir: null, why: `${ours} is missing: this checkout has no built better-sqlite3` };
    mkdirSync(path.dirname(addon), { recursive: true });
    copyFileSync(ours, addon);
  }
  return installed;
}

export async function installCline4(): Promise<Install> {
  return install(CLINE4.spec, CLINE4.name, (dir) =>
    existsSync(path.join(dir, 'bin', 'cline')) ? null : `${dir} has no bin/cline`,
  );
}

/** HOME and TMPDIR inside `root`; no auto-update, and any global npm install lands in the sandbox. */
export function clineEnv(root: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: path.join(root, 'home'),
    TMPDIR: path.join(root, 'tmp'),
    CLINE_NO_AUTO_UPDATE: '1',
    npm_config_prefix: path.join(root, 'npm-global'),
    npm_config_update_notifier: 'false',
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Runs a command to its end; throws with its output when it fails. */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const result = await collect(child, options.timeoutMs ?? 240_000);
  if (result.code !== 0) {
    throw new Error(
      `${path.basename(command)} ${args.join(' ')} in ${options.cwd} exited ${result.code ?? result.signal}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
    );
  }
  return result.stdout;
}

/** Stops a child and waits for it: SIGTERM, then SIGKILL after a grace period. */
export async function stop(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}
