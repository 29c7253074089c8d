import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collect } from '../../helpers/cli.js';
import { installPackage } from '../../support/real-clis/npm-install.js';

/**
 * The real Kilo CLI (npm `@kilocode/cli-linux-x64`, whose `bin/kilo` is a self-contained
 * executable), installed at test time into a cache folder outside the repository and never into
 * package.json.
 */
const KILO_PACKAGE = '@kilocode/cli-linux-x64';
const KILO_VERSION = '7.7.9';

export interface KiloInstall {
  bin: string | null;
  /** Why the CLI is not available, when it is not. */
  why?: string;
}

function kiloCacheDir(): string {
  return process.env.AGENT_JANITOR_KILO_CLI_CACHE ?? path.join(os.tmpdir(), `agent-janitor-kilo-cli-${KILO_VERSION}`);
}

export async function installKiloCli(): Promise<KiloInstall> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { bin: null, why: `${KILO_PACKAGE} runs on linux x64 only, this is ${process.platform} ${process.arch}` };
  }
  const cache = kiloCacheDir();
  const bin = path.join(cache, 'node_modules', ...KILO_PACKAGE.split('/'), 'bin', 'kilo');
  if (existsSync(bin)) return { bin };
  const why = await installPackage({
    spec: `${KILO_PACKAGE}@${KILO_VERSION}`,
    cache,
    expect: path.join('node_modules', ...KILO_PACKAGE.split('/'), 'bin', 'kilo'),
    timeoutMs: 300_000,
  });
  return why === null ? { bin } : { bin: null, why };
}

export interface KiloSandbox {
  home: string;
  env: NodeJS.ProcessEnv;
}

/** HOME, the XDG folders and TMPDIR inside `root`, and nothing of this machine's Kilo. */
export function kiloSandbox(root: string): KiloSandbox {
  const home = path.join(root, 'home');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    TMPDIR: path.join(root, 'tmp'),
  };
  return { home, env };
}

/** Runs `kilo <args>` in `cwd`; throws with Kilo's own output when it fails. */
export async function kilo(
  bin: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  const child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const result = await collect(child, options.timeoutMs ?? 240_000);
  if (result.code !== 0) {
    throw new Error(
      `kilo ${args.join(' ')} in ${options.cwd} exited ${result.code ?? result.signal}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
    );
  }
  return result.stdout;
}
