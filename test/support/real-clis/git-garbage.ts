import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * Leaves real git garbage in a repository the way users get it: a real `git add` of a large file is
 * killed with SIGKILL while it streams the file into a pack, so that `objects/pack/tmp_pack_*` stays
 * (and, from `git add`, the `index.lock` it held). A file over `core.bigFileThreshold` goes straight
 * into a pack; the threshold is lowered so that a few MB stand in for the hundreds of MB users add.
 */
export interface KilledPack {
  /** The `objects/pack/tmp_pack_*` file git left. */
  tmpPack: string;
  /** Its size when git was killed. */
  bytes: number;
  /** `<gitDir>/index.lock`, when the killed command held the index. */
  indexLock: string | null;
}

export async function killGitMidPack(options: {
  gitDir: string;
  workTree: string;
  /** The large file's name inside the work tree; written, and removed again afterwards. */
  file?: string;
  megabytes?: number;
  env?: NodeJS.ProcessEnv;
}): Promise<KilledPack> {
  // Random bytes do not compress: git takes about a second per 32 MB here, time enough to kill it.
  for (let megabytes = options.megabytes ?? 48, tries = 0; tries < 3; tries++, megabytes *= 2) {
    const caught = await addUntilMidPack(options, megabytes, 'SIGKILL');
    await caught.exited;
    rmSync(caught.file, { force: true });
    if (caught.tmpPack && caught.git.signalCode === 'SIGKILL') {
      const indexLock = path.join(options.gitDir, 'index.lock');
      return {
        tmpPack: caught.tmpPack,
        bytes: statSync(caught.tmpPack).size,
        indexLock: existsSync(indexLock) ? indexLock : null,
      };
    }
    // git finished before it could be killed: undo nothing (the blob is real content now) and try larger.
  }
  throw new Error(`git add in ${options.gitDir} finished every time before it could be killed mid-pack`);
}

/**
 * A real `git add` caught in the act: stopped (SIGSTOP) while it streams a large file into
 * `objects/pack/tmp_pack_*`, which it still holds open; the caller kills it (SIGKILL) when done.
 */
export async function stopGitMidPack(options: {
  gitDir: string;
  workTree: string;
  file?: string;
  env?: NodeJS.ProcessEnv;
}): Promise<{ git: ChildProcess; tmpPack: string }> {
  for (let megabytes = 64, tries = 0; tries < 3; tries++, megabytes *= 2) {
    const caught = await addUntilMidPack(options, megabytes, 'SIGSTOP');
    rmSync(caught.file, { force: true });
    if (caught.tmpPack) return { git: caught.git, tmpPack: caught.tmpPack };
  }
  throw new Error(`git add in ${options.gitDir} finished every time before it could be stopped mid-pack`);
}

/**
 * Starts a real `git add` of a file of `megabytes` random bytes and sends it `signal` as soon as a
 * new `objects/pack/tmp_pack_*` of over 1 MB is there; `tmpPack` is null where git finished first.
 */
async function addUntilMidPack(
  options: { gitDir: string; workTree: string; file?: string; env?: NodeJS.ProcessEnv },
  megabytes: number,
  signal: NodeJS.Signals,
): Promise<{ git: ChildProcess; exited: Promise<void>; file: string; tmpPack: string | null }> {
  const packDir = path.join(options.gitDir, 'objects', 'pack');
  const file = path.join(options.workTree, options.file ?? 'large-asset.bin');
  const before = new Set(existsSync(packDir) ? readdirSync(packDir) : []);
  writeRandom(file, megabytes);
  const git = spawn(
    'git',
    [
      '--git-dir',
      options.gitDir,
      '--work-tree',
      options.workTree,
      '-c',
      'core.bigFileThreshold=1m',
      'add',
      '--',
      path.relative(options.workTree, file),
    ],
    { env: { ...process.env, ...options.env, LC_ALL: 'C' }, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => git.once('exit', () => resolve()));
  while (git.exitCode === null && git.signalCode === null) {
    const tmpPack = (existsSync(packDir) ? readdirSync(packDir) : []).find(
      (name) => name.startsWith('tmp_pack_') && !before.has(name),
    );
    if (tmpPack && statSync(path.join(packDir, tmpPack)).size > 1 << 20) {
      git.kill(signal);
      return { git, exited, file, tmpPack: path.join(packDir, tmpPack) };
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { git, exited, file, tmpPack: null };
}

function writeRandom(file: string, megabytes: number): void {
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < megabytes; i++) writeSync(fd, randomBytes(1 << 20));
  } finally {
    closeSync(fd);
  }
}
