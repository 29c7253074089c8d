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
  const packDir = path.join(options.gitDir, 'objects', 'pack');
  const file = path.join(options.workTree, options.file ?? 'large-asset.bin');
  const before = new Set(existsSync(packDir) ? readdirSync(packDir) : []);
  // Random bytes do not compress: git takes about a second per 32 MB here, time enough to kill it.
  for (let megabytes = options.megabytes ?? 48, tries = 0; tries < 3; tries++, megabytes *= 2) {
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
    let killedAt: { tmpPack: string; bytes: number } | null = null;
    while (git.exitCode === null && git.signalCode === null) {
      const tmpPack = (existsSync(packDir) ? readdirSync(packDir) : []).find(
        (name) => name.startsWith('tmp_pack_') && !before.has(name),
      );
      const bytes = tmpPack ? statSync(path.join(packDir, tmpPack)).size : 0;
      if (tmpPack && bytes > 1 << 20) {
        git.kill('SIGKILL');
        killedAt = { tmpPack: path.join(packDir, tmpPack), bytes };
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await exited;
    rmSync(file, { force: true });
    if (killedAt && git.signalCode === 'SIGKILL') {
      const indexLock = path.join(options.gitDir, 'index.lock');
      return {
        ...killedAt,
        bytes: statSync(killedAt.tmpPack).size,
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
  const packDir = path.join(options.gitDir, 'objects', 'pack');
  const file = path.join(options.workTree, options.file ?? 'large-asset.bin');
  const before = new Set(existsSync(packDir) ? readdirSync(packDir) : []);
  for (let megabytes = 64, tries = 0; tries < 3; tries++, megabytes *= 2) {
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
    while (git.exitCode === null && git.signalCode === null) {
      const tmpPack = (existsSync(packDir) ? readdirSync(packDir) : []).find(
        (name) => name.startsWith('tmp_pack_') && !before.has(name),
      );
      if (tmpPack && statSync(path.join(packDir, tmpPack)).size > 1 << 20) {
        git.kill('SIGSTOP');
        rmSync(file, { force: true });
        return { git, tmpPack: path.join(packDir, tmpPack) };
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    rmSync(file, { force: true });
  }
  throw new Error(`git add in ${options.gitDir} finished every time before it could be stopped mid-pack`);
}

function writeRandom(file: string, megabytes: number): void {
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < megabytes; i++) writeSync(fd, randomBytes(1 << 20));
  } finally {
    closeSync(fd);
  }
}
