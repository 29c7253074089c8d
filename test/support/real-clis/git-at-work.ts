import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import {
  containerRoot,
  descendantsOf,
  freeze,
  processBelow,
  startContainer,
  stateOf,
} from '../../helpers/container-root.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * A real `git repack -a -d` caught between two of its steps, as opencode's hourly `git gc` leaves
 * one when it is suspended (Ctrl-Z, SIGSTOP) or its container paused (the cgroup freezer): its
 * `git pack-objects` has written `objects/pack/.tmp-<pid>-pack-*` and exited, and the repack has
 * not yet renamed them into place. It holds no file of the repository then, and its working
 * directory is elsewhere: only its command line says where it works (rule 26).
 *
 * git runs its pack-objects through the `git` first in `GIT_EXEC_PATH`; a `git` of the test's own
 * there runs the real pack-objects, says so, and waits until the test has suspended the repack.
 */
export interface CaughtRepack {
  /** The git repack, as this machine's /proc numbers it. */
  pid: number;
  /** The `.tmp-<pid>-pack-*` files its pack-objects wrote, not yet renamed. */
  tmpFiles: string[];
  /** Lets it go on (SIGCONT, or thawed) and waits until it has finished, its packs renamed into place. */
  resume(): Promise<void>;
  /** Kills it and waits until it is gone: its `.tmp-*` files stay behind, garbage. */
  kill(): Promise<void>;
}

export interface RepackOptions {
  /** The git folder, as this test names it. */
  gitDir: string;
  /** The `--git-dir` git is given: a spelling of the same folder as git sees it. */
  spelled: string;
  /** How it is suspended: SIGSTOP, or frozen with the cgroup v1 freezer. */
  hold: 'stop' | 'freeze';
  /** Run in a container (mount and PID namespaces of its own, a root of its own) that mounts `home` at /workspace. */
  container?: { home: string };
}

const realGit = (): string => execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const caught: Array<() => Promise<void>> = [];

export async function repackBetweenSteps(options: RepackOptions): Promise<CaughtRepack> {
  const hook = tempDir('aj-git-hook-');
  const git = realGit();
  writeFileSync(
    path.join(hook, 'git'),
    [
      '#!/bin/sh',
      'if [ "$1" = pack-objects ]; then',
      `  '${git}' "$@" || exit $?`,
      '  : > "$AJ_PACKED"',
      '  while [ ! -e "$AJ_GO_ON" ]; do sleep 0.02; done',
      '  exit 0',
      'fi',
      `exec '${git}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const args = ['--git-dir', options.spelled, 'repack', '-a', '-d'];
  const env = (signals: string) => ({
    PATH: '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_EXEC_PATH: '/aj-hook',
    AJ_PACKED: path.join(signals, 'packed'),
    AJ_GO_ON: path.join(signals, 'go-on'),
  });

  let runner: ChildProcess;
  let signals: string;
  if (options.container) {
    const root = containerRoot({ folders: ['workspace', 'aj-hook', 'aj-signals'] });
    signals = path.join(root, 'aj-signals');
    runner = startContainer(
      root,
      { workspace: options.container.home, 'aj-hook': hook },
      { ...env('/aj-signals'), HOME: '/workspace' },
      ['git', ...args],
    );
  } else {
    signals = tempDir('aj-git-signals-');
    runner = spawn(git, args, { cwd: '/', stdio: 'ignore', env: { ...env(signals), GIT_EXEC_PATH: hook } });
  }
  const exited = new Promise<void>((resolve) => runner.once('exit', () => resolve()));
  await waitFor(() => {
    if (runner.exitCode !== null) throw new Error(`git repack of ${options.gitDir} exited ${runner.exitCode} early`);
    return existsSync(path.join(signals, 'packed'));
  }, 30_000);
  const pid = options.container
    ? await processBelow(runner, (argv) => argv.includes('repack'))
    : (runner.pid as number);

  let thaw: (() => Promise<void>) | null = null;
  if (options.hold === 'freeze') thaw = (await freeze(pid)).thaw;
  else {
    process.kill(pid, 'SIGSTOP');
    await waitFor(() => stateOf(pid) === 'T');
  }
  // Its pack-objects may go now: the repack it returns to cannot take the next step.
  writeFileSync(path.join(signals, 'go-on'), '');
  await waitFor(() => descendantsOf(pid).every((child) => stateOf(child) === 'Z' || stateOf(child) === null));

  const packDir = path.join(options.gitDir, 'objects', 'pack');
  const tmpFiles = readdirSync(packDir)
    .filter((name) => /^\.tmp-\d+-pack-/.test(name))
    .map((name) => path.join(packDir, name));
  if (tmpFiles.length === 0) throw new Error(`git repack left no .tmp-*-pack-* in ${packDir}`);

  let done = false;
  const end = async (signal: NodeJS.Signals) => {
    if (done) return;
    done = true;
    process.kill(pid, signal);
    if (thaw) await thaw();
    await exited;
  };
  caught.push(() => end('SIGKILL'));
  return {
    pid,
    tmpFiles,
    async resume() {
      await end('SIGCONT');
      if (runner.exitCode !== 0) throw new Error(`git repack of ${options.gitDir} exited ${runner.exitCode}`);
    },
    kill: () => end('SIGKILL'),
  };
}

afterEach(async () => {
  for (const end of caught.splice(0)) await end().catch(() => undefined);
});
