import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EACH, runGitInEach } from '../../src/git/each.js';
import { GitError, type GitResult, IncompleteAnswer, runGit } from '../../src/git/git.js';
import { STOP_GRACE_MS } from '../../src/git/stop.js';
import { decodeBytes, encodeText } from '../../src/safety/fs/names.js';
import { bytesPath, gitBytes, latin1, mkdirBytes, spelled } from '../helpers/bytes.js';
import { withProcessEnv } from '../helpers/process-env.js';
import { tempDir } from '../helpers/temp.js';
import { UNREAD_WARNINGS } from '../helpers/unread-warnings.js';

/**
 * Faults injected where git is started: a `git` of our own first on PATH. It does what
 * FAKE_GIT_MODE says and writes its pid first, so a test can tell whether the child is gone.
 */
function fakeGit(): { path: string; pidFile: string } {
  const bin = tempDir('aj-fake-git-');
  chmodSync(bin, 0o755);
  const pidFile = path.join(bin, 'pid');
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh
# Run as another user, it may not write there: that is not what a test looks at.
{ echo $$ > '${pidFile}'; } 2>/dev/null
case "$FAKE_GIT_MODE" in
  hang) exec sleep 600 ;;
  deaf) trap '' INT; exec sleep 600 ;;
  tidy) touch "$FAKE_GIT_LOCK"; sleep 600 >/dev/null 2>&1 & trap 'rm -f "$FAKE_GIT_LOCK"; kill $!; exit 130' INT; wait ;;
  orphan) sh -c "echo \\$\\$ > '${pidFile}.orphan'; exec sleep 600" & exit 0 ;;
  bursts) ( sleep 0.3; for k in 0 1 2 3; do seq $((k * 75000 + 1)) $((k * 75000 + 75000)); sleep 0.05; done ) & exit 0 ;;
  bytes) printf '1 .M N... 100644 100644 100644 0 0 caf\\351.txt\\000? d\\351j\\340/\\377\\376\\000'; printf 'warning: caf\\351\\n' >&2 ;;
  fail) echo 'fatal: not today' >&2; exit 3 ;;
  warn) echo 'the answer'; printf '%s\n' "$FAKE_GIT_WARNING" >&2 ;;
  silent-fail) exit 5 ;;
  argv) printf '%s\\n' "$@"; echo ---; env; echo ---; id -u; id -g; pwd -P ;;
esac
`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  return { path: `${bin}:${process.env.PATH}`, pidFile };
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const pidOf = (pidFile: string): number => Number(readFileSync(pidFile, 'utf8').trim());

/** What every git run starts with: hooks and fsmonitor off, any repository's owner trusted. */
const SAFE_ARGUMENTS = ['-c', 'core.fsmonitor=false', '-c', 'safe.directory=*', '-c', 'core.hooksPath=/dev/null'];

/** The environment a fake git printed: the runner's settings in it, and none of the `leaked` variables. */
function expectScrubbed(env: string, leaked: RegExp): void {
  const variables = env.split('\n');
  expect(variables).toContain('GIT_OPTIONAL_LOCKS=0');
  expect(variables).toContain('LC_ALL=C');
  expect(variables.filter((line) => leaked.test(line))).toEqual([]);
}

/** Starts `git status` on a fake git in `mode` with an abort signal, and aborts it once git runs. */
async function abortedRun(mode: string) {
  const fake = fakeGit();
  const controller = new AbortController();
  const env = { PATH: fake.path, FAKE_GIT_MODE: mode };
  const again = () => runGit(['status'], { env, timeoutMs: 60_000, abort: controller.signal });
  const outcome = again().then(
    () => null,
    (err: unknown) => err,
  );
  // Wait for the child to have started before aborting it.
  for (let k = 0; k < 200 && !existsPid(fake.pidFile); k += 1) await new Promise((r) => setTimeout(r, 50));
  const pid = pidOf(fake.pidFile);
  expect(gone(pid)).toBe(false);
  controller.abort();
  return { fake, again, pid, err: await outcome };
}

describe('the git runner against a git that misbehaves', () => {
  it('kills a git that hangs once its time limit passes, and the caller gets a GitError', async () => {
    const fake = fakeGit();
    const started = Date.now();
    const run = runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'hang' }, timeoutMs: 300 });
    await expect(run).rejects.toThrow(GitError);
    await expect(run).rejects.toThrow(/timeout/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(gone(pidOf(fake.pidFile))).toBe(true);
  });

  it('kills a git that ignores SIGINT once its time limit passes', async () => {
    const fake = fakeGit();
    const run = runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'deaf' }, timeoutMs: 300 });
    await expect(run).rejects.toThrow(/timeout/);
    expect(gone(pidOf(fake.pidFile))).toBe(true);
  });

  it('ends the run at its time limit when git has exited but a child of its holds the output open', async () => {
    const fake = fakeGit();
    const run = runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'orphan' }, timeoutMs: 300 });
    try {
      await expect(run).rejects.toThrow(/timeout/);
    } finally {
      for (let k = 0; k < 100 && !existsPid(`${fake.pidFile}.orphan`); k += 1)
        await new Promise((r) => setTimeout(r, 20));
      process.kill(pidOf(`${fake.pidFile}.orphan`), 'SIGKILL');
    }
  });

  it('reads every byte git writes, even when it comes after git has exited (a status cut short looks clean)', async () => {
    const fake = fakeGit();
    const result = await runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'bursts' } });
    const expected = Array.from({ length: 300_000 }, (_, k) => `${k + 1}\n`).join('');
    expect(expected.length).toBeGreaterThan(1_900_000);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(expected.length);
    expect(result.stdout === expected).toBe(true);
  });

  it('kills a running git on abort, and starts none once aborted', async () => {
    const { fake, again, pid, err } = await abortedRun('hang');
    expect(err).toBeInstanceOf(GitError);
    expect((err as GitError).message).toMatch(/aborted/);
    expect(gone(pid)).toBe(true);

    writeFileSync(fake.pidFile, '');
    await expect(again()).rejects.toThrow(/aborted/);
    expect(readFileSync(fake.pidFile, 'utf8')).toBe('');
  });

  it('keeps the bytes of names that are not UTF-8, on stdout and stderr', async () => {
    const fake = fakeGit();
    const result = await runGit(['status', '--porcelain=v2', '-z'], {
      env: { PATH: fake.path, FAKE_GIT_MODE: 'bytes' },
    });
    expect(result.code).toBe(0);
    const expected = latin1('1 .M N... 100644 100644 100644 0 0 caf\xe9.txt\0? d\xe9j\xe0/\xff\xfe\0');
    expect(result.stdout).toBe(decodeBytes(expected));
    expect(encodeText(result.stdout).equals(expected)).toBe(true);
    expect(encodeText(result.stderr).equals(latin1('warning: caf\xe9\n'))).toBe(true);
  });

  it('answers a failed git as an exit code, with or without a message, never as a crash', async () => {
    const fake = fakeGit();
    await expect(runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'fail' } })).resolves.toEqual({
      code: 3,
      stdout: '',
      stderr: 'fatal: not today\n',
    });
    await expect(runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'silent-fail' } })).resolves.toEqual({
      code: 5,
      stdout: '',
      stderr: '',
    });
    // No git at all: the caller gets a GitError it can count.
    await expect(runGit(['status'], { env: { PATH: tempDir('aj-no-git-') } })).rejects.toThrow(GitError);
  });

  it('runs git with hooks and fsmonitor off and the scrubbed environment', async () => {
    const fake = fakeGit();
    const { stdout } = await withProcessEnv(
      { GIT_DIR: '/elsewhere/.git', GIT_INDEX_FILE: '/elsewhere/index', LC_ALL: 'fr_FR.UTF-8' },
      () => runGit(['status'], { env: { PATH: fake.path, FAKE_GIT_MODE: 'argv' } }),
    );
    const [argv, env] = stdout.split('---\n') as [string, string];
    expect(argv.split('\n').slice(0, 7)).toEqual([...SAFE_ARGUMENTS, 'status']);
    expectScrubbed(env, /^GIT_(DIR|INDEX_FILE)=/);
  });

  it.runIf(process.geteuid?.() === 0)('runs git as the owner it is given, in the folder it is given', async () => {
    const fake = fakeGit();
    const folder = tempDir('aj-owner-cwd-');
    chmodSync(folder, 0o755);
    const { stdout } = await runGit(['status'], {
      cwd: folder,
      owner: { uid: 65534, gid: 65534 },
      env: { PATH: fake.path, FAKE_GIT_MODE: 'argv' },
    });
    const tail = stdout.trimEnd().split('\n').slice(-3);
    expect(tail).toEqual(['65534', '65534', folder]);
  });
});

describe('git in many folders from one shell (src/git/each.ts) against a git that misbehaves', () => {
  it('stops the shell and the git it waits on, even one that ignores SIGINT, and trusts no answer of theirs', async () => {
    const fake = fakeGit();
    const folders = [tempDir('aj-each-a-'), tempDir('aj-each-b-')];
    const started = Date.now();
    const answers = await withProcessEnv({ PATH: fake.path, FAKE_GIT_MODE: 'deaf' }, () =>
      runGitInEach(folders, ['-C', EACH, 'log'], { silenceLimitMs: 300 }),
    );
    expect(answers).toEqual([null, null]);
    const pid = pidOf(fake.pidFile);
    // SIGKILL comes STOP_GRACE_MS after SIGINT, to the whole group.
    for (let k = 0; k < 100 && !gone(pid); k += 1) await new Promise((r) => setTimeout(r, 50));
    expect(gone(pid)).toBe(true);
    expect(Date.now() - started).toBeLessThan(STOP_GRACE_MS + 10_000);
  });

  it('runs each git in its folder with hooks and fsmonitor off and the scrubbed environment, and answers its exit code', async () => {
    const fake = fakeGit();
    const folders = [tempDir('aj-each-a-'), tempDir('aj-each-b-')];
    const answers = await withProcessEnv(
      {
        PATH: fake.path,
        FAKE_GIT_MODE: 'argv',
        GIT_DIR: '/elsewhere/.git',
        GIT_WORK_TREE: '/elsewhere',
        LC_ALL: 'de_DE',
      },
      () => runGitInEach(folders, ['-C', EACH, 'log', '--all']),
    );
    for (const [k, answer] of answers.entries()) {
      const result = answer as GitResult;
      expect(result.code).toBe(0);
      const [argv, env] = result.stdout.split('---\n') as [string, string];
      expect(argv.split('\n')).toEqual([...SAFE_ARGUMENTS, '-C', folders[k], 'log', '--all', '']);
      expectScrubbed(env, /^GIT_(DIR|WORK_TREE)=/);
    }
    const failed = await withProcessEnv({ PATH: fake.path, FAKE_GIT_MODE: 'fail' }, () =>
      runGitInEach(folders, ['-C', EACH, 'log']),
    );
    expect(failed).toEqual([
      { code: 3, stdout: '', stderr: 'fatal: not today\n' },
      { code: 3, stdout: '', stderr: 'fatal: not today\n' },
    ]);
  });
});

describe('the git runner with a git that ignores SIGINT', () => {
  it('kills it on abort', async () => {
    const { pid, err } = await abortedRun('deaf');
    expect((err as GitError).message).toMatch(/aborted/);
    expect(gone(pid)).toBe(true);
  });
});

describe('the git runner stops git with SIGINT first, so git removes the lock files it holds', () => {
  const lockLeftBy = async (run: (env: NodeJS.ProcessEnv) => Promise<unknown>): Promise<boolean> => {
    const fake = fakeGit();
    const lock = path.join(tempDir('aj-fake-lock-'), 'index.lock');
    const started = Date.now();
    await expect(run({ PATH: fake.path, FAKE_GIT_MODE: 'tidy', FAKE_GIT_LOCK: lock })).rejects.toThrow(/timeout/);
    expect(gone(pidOf(fake.pidFile))).toBe(true);
    // Well inside the grace before SIGKILL: git went at SIGINT.
    expect(Date.now() - started).toBeLessThan(300 + STOP_GRACE_MS);
    return existsSync(lock);
  };

  it('in every kind of run (plain, standard input, descriptors)', async () => {
    expect(await lockLeftBy((env) => runGit(['status'], { env, timeoutMs: 300 }))).toBe(false);
    expect(await lockLeftBy((env) => runGit(['status'], { env, timeoutMs: 300, input: '' }))).toBe(false);
    const folder = mkdirBytes(bytesPath(tempDir('aj-fake-bytes-'), latin1('caf\xe9')));
    expect(
      await lockLeftBy((env) => runGit(['-C', '/', 'worktree', 'remove', spelled(folder)], { env, timeoutMs: 300 })),
    ).toBe(false);
  });
});

describe('the git runner with real git and paths that are not UTF-8', () => {
  it('runs git in a working directory that is not UTF-8 and reads its name back byte for byte', async () => {
    const root = tempDir('aj-git-bytes-');
    const repo = mkdirBytes(bytesPath(root, latin1('caf\xe9-\xff')));
    gitBytes(root, 'init', '-q', repo);
    const result = await runGit(['rev-parse', '--show-toplevel'], { cwd: spelled(repo) });
    expect(result.code).toBe(0);
    expect(encodeText(result.stdout.trimEnd()).equals(repo)).toBe(true);

    const viaC = await runGit(['-C', spelled(repo), 'rev-parse', '--git-dir']);
    expect(viaC.code).toBe(0);
    expect(viaC.stdout).toBe('.git\n');
  });

  it('hands git an absolute path that is not UTF-8 as a descriptor, and refuses a relative one', async () => {
    const root = tempDir('aj-git-bytes-');
    const repo = mkdirBytes(bytesPath(root, latin1('r\xe9po')));
    gitBytes(root, 'init', '-q', repo);
    const gitdir = Buffer.concat([repo, Buffer.from('/.git')]);
    const viaDescriptor = await runGit(['--git-dir', spelled(gitdir), 'rev-parse', '--is-bare-repository']);
    expect(viaDescriptor).toEqual({ code: 0, stdout: 'false\n', stderr: '' });
    await expect(runGit(['hash-object', spelled(Buffer.from('caf\xe9', 'latin1'))], { cwd: '/' })).rejects.toThrow(
      /is not UTF-8 and is no absolute path/,
    );
  });

  it('reads a config file whose path is not UTF-8', async () => {
    const root = tempDir('aj-git-bytes-');
    const folder = mkdirBytes(bytesPath(root, latin1('d\xe9j\xe0')));
    const config = bytesPath(folder, 'config');
    writeFileSync(config, '[core]\n\tworktree = /srv/w\n');
    const result = await runGit(['config', '--file', spelled(config), '--get', 'core.worktree']);
    expect(result).toEqual({ code: 0, stdout: '/srv/w\n', stderr: '' });
  });
});

function existsPid(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').trim() !== '';
  } catch {
    return false;
  }
}

describe('a pass killed with its process group leaves no git of a shell batch behind', () => {
  it('the shell, in a group of its own, and the git it waits on die with the pass', async () => {
    const fake = fakeGit();
    const folder = tempDir('aj-each-killed-');
    // A pass of its own (the built modules), started in a group of its own as systemd or a test starts it.
    const each = new URL('../../dist/git/each.js', import.meta.url).href;
    const pass = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { EACH, runGitInEach } from '${each}'; await runGitInEach(['${folder}'], ['-C', EACH, 'log']);`,
      ],
      { env: { ...process.env, PATH: fake.path, FAKE_GIT_MODE: 'hang' }, stdio: 'ignore', detached: true },
    );
    for (let k = 0; k < 200 && !existsPid(fake.pidFile); k += 1) await new Promise((r) => setTimeout(r, 50));
    const git = pidOf(fake.pidFile);
    const shell = Number(readFileSync(`/proc/${git}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    expect(gone(git)).toBe(false);
    expect(gone(shell)).toBe(false);

    process.kill(-(pass.pid as number), 'SIGKILL');

    for (let k = 0; k < 100 && !(gone(git) && gone(shell)); k += 1) await new Promise((r) => setTimeout(r, 50));
    expect(gone(shell)).toBe(true);
    expect(gone(git)).toBe(true);
  });
});

describe('a git that exits 0 but warns that it could not read part of what it was asked (rule 22)', () => {
  it.each(UNREAD_WARNINGS)('gives no answer, however it was started: %s', async (warning) => {
    const fake = fakeGit();
    const env = { PATH: fake.path, FAKE_GIT_MODE: 'warn', FAKE_GIT_WARNING: warning };
    await expect(runGit(['status'], { env })).rejects.toThrow(IncompleteAnswer);
    await expect(runGit(['hash-object', '--stdin-paths'], { env, input: 'a\n' })).rejects.toThrow(IncompleteAnswer);
    const folders = [tempDir('aj-each-a-'), tempDir('aj-each-b-')];
    const answers = await withProcessEnv(env, () => runGitInEach(folders, ['-C', EACH, 'log']));
    for (const answer of answers) expect(answer).toBeInstanceOf(IncompleteAnswer);
  });

  it('answers as usual when what it warns of is something else', async () => {
    const fake = fakeGit();
    const env = { PATH: fake.path, FAKE_GIT_MODE: 'warn', FAKE_GIT_WARNING: 'hint: a hint' };
    await expect(runGit(['status'], { env })).resolves.toEqual({
      code: 0,
      stdout: 'the answer\n',
      stderr: 'hint: a hint\n',
    });
  });
});
