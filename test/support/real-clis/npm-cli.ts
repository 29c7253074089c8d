import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPackage } from './npm-install.js';

/**
 * A real agent CLI from the npm registry, installed at test time into a cache folder outside the
 * repository (never into package.json), install scripts off: nothing is downloaded from anywhere but
 * npm, and a later run reuses the install.
 */
export interface NpmCli {
  /** The package the user installs, e.g. `@openai/codex`. */
  name: string;
  version: string;
  /** The executable inside the install's `node_modules`, e.g. `@openai/codex-linux-x64/vendor/…/codex`. */
  bin: string;
  /** Where the package runs; elsewhere the install is skipped with that reason. */
  platforms?: Array<`${NodeJS.Platform}-${NodeJS.Architecture}`>;
  /** Overrides the cache folder for this CLI alone. */
  cacheEnv?: string;
}

export type CliInstall = { bin: string; why?: undefined } | { bin: null; why: string };

/** The folder all real CLIs are cached under: `$AGENT_JANITOR_REAL_CLI_CACHE`, else `$TMPDIR/agent-janitor-real-clis`. */
function realCliCacheRoot(): string {
  return process.env.AGENT_JANITOR_REAL_CLI_CACHE ?? path.join(os.tmpdir(), 'agent-janitor-real-clis');
}

function cliCacheDir(cli: NpmCli): string {
  const own = cli.cacheEnv ? process.env[cli.cacheEnv] : undefined;
  return own ?? path.join(realCliCacheRoot(), `${cli.name.replace(/[@/]/g, '_')}@${cli.version}`);
}

export async function installNpmCli(cli: NpmCli): Promise<CliInstall> {
  const here = `${process.platform}-${process.arch}` as const;
  if (cli.platforms && !cli.platforms.includes(here)) {
    return {
      bin: null,
      why: `${cli.name}@${cli.version} is tested on ${cli.platforms.join(', ')} only, this is ${here}`,
    };
  }
  const cache = cliCacheDir(cli);
  const bin = path.join(cache, 'node_modules', cli.bin);
  if (existsSync(bin)) return { bin };
  mkdirSync(path.dirname(cache), { recursive: true });
  const why = await installPackage({
    spec: `${cli.name}@${cli.version}`,
    cache,
    expect: path.join('node_modules', cli.bin),
    timeoutMs: 300_000,
  });
  return why === null ? { bin } : { bin: null, why };
}
