import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { collect } from '../../helpers/cli.js';

export interface PackageInstall {
  /** The package spec npm installs (`name@version`). */
  spec: string;
  /** The folder the package's install ends up in, reused by later runs. */
  cache: string;
  /** What must be in the install (relative to it) for it to count: the package's binary or folder. */
  expect: string;
  timeoutMs: number;
  /** An install already at `cache` is replaced (it failed a check of the caller's). */
  replace?: boolean;
}

/**
 * Installs a package from npm with its scripts off (nothing comes from anywhere but npm), beside
 * the cache and renamed into place, so that two runs never see half a package. Null when it is
 * there, else why not.
 */
export async function installPackage(install: PackageInstall): Promise<string | null> {
  const staging = mkdtempSync(`${install.cache}.staging-`);
  const npm = spawn(
    'npm',
    [
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      install.spec,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } },
  );
  const result = await collect(npm, install.timeoutMs).catch((err: Error) => ({
    code: -1,
    signal: null,
    stdout: '',
    stderr: err.message,
  }));
  if (result.code !== 0 || !existsSync(path.join(staging, install.expect))) {
    rmSync(staging, { recursive: true, force: true });
    const last = result.stderr.trim().split('\n').slice(-3).join(' | ');
    const why = result.code === 0 ? `${install.expect} is not in the package` : last || `exit ${result.code}`;
    return `npm could not install ${install.spec}: ${why}`;
  }
  try {
    if (install.replace) rmSync(install.cache, { recursive: true, force: true });
    renameSync(staging, install.cache);
  } catch {
    // Another run put it in place first; use theirs.
    rmSync(staging, { recursive: true, force: true });
  }
  const wanted = path.join(install.cache, install.expect);
  return existsSync(wanted) ? null : `${wanted} is missing after the install`;
}
