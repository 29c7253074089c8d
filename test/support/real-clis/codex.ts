import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitWith, makeProject } from './layout.js';
import type { NpmCli } from './npm-cli.js';
import { cmdlineOf, killHard, runToEnd, startRunning, stateOf, treeOf, waitUntil } from './run.js';
import type { CliSandbox } from './sandbox.js';

/** Codex (npm `@openai/codex`, whose `@openai/codex-linux-x64` holds a static musl executable). */
export const CODEX: NpmCli = {
  name: '@openai/codex',
  version: '0.171.0',
  bin: '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  platforms: ['linux-x64'],
};

export interface Codex {
  bin: string;
  sandbox: CliSandbox;
  /** `$CODEX_HOME` (`~/.codex`, or a profile's). */
  home: string;
  /** `$CODEX_HOME/.tmp/marketplaces`. */
  marketplaces: string;
  /** The environment Codex runs with: the sandbox's, `CODEX_HOME` naming this home. */
  env: NodeJS.ProcessEnv;
}

/**
 * Codex on the fake model server's Responses API, as provider `fake` with model `fake-model`;
 * `extraConfig` is appended to its config.toml.
 */
export function codexIn(bin: string, sandbox: CliSandbox, port: number, extraConfig = ''): Codex {
  const cx = codexProfile(bin, sandbox, port, path.join(sandbox.home, '.codex'), extraConfig);
  Object.assign(sandbox.env, { CODEX_HOME: cx.home, FAKE_API_KEY: 'x' });
  return { ...cx, env: sandbox.env };
}

/**
 * Another Codex home of the same user, as a work profile is started (`CODEX_HOME=~/.codex-work`):
 * its own config.toml, database and locks; `extraConfig` is appended to its config.toml.
 */
export function codexProfile(bin: string, sandbox: CliSandbox, port: number, home: string, extraConfig = ''): Codex {
  mkdirSync(home, { recursive: true });
  writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "http://127.0.0.1:${port}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_API_KEY"',
      '',
      extraConfig,
    ].join('\n'),
  );
  const env = { ...sandbox.env, CODEX_HOME: home, FAKE_API_KEY: 'x' };
  return { bin, sandbox, home, marketplaces: path.join(home, '.tmp', 'marketplaces'), env };
}

export const codex = (cx: Codex, args: string[], cwd: string) =>
  runToEnd(cx.bin, args, { cwd, env: cx.env, timeoutMs: 120_000 });

/**
 * A marketplace on "GitHub" that is a local bare repository: `https://github.com/acme/<name>.git` is
 * rewritten to it by `url.<file URL>.insteadOf` in the sandbox's ~/.gitconfig, so Codex runs its real
 * `git ls-remote` and `git clone` against it.
 */
export interface MarketplaceSource {
  name: string;
  url: string;
  bare: string;
  /** Commits a new file to the source, so that the next `marketplace upgrade` has something to fetch. */
  publish(file: string): void;
}

export function marketplaceSource(sandbox: CliSandbox, name: string): MarketplaceSource {
  const work = path.join(sandbox.root, 'sources', name);
  const bare = `${work}.git`;
  mkdirSync(path.join(work, '.agents', 'plugins'), { recursive: true });
  writeFileSync(
    path.join(work, '.agents', 'plugins', 'marketplace.json'),
    `${JSON.stringify({ name, plugins: [] })}\n`,
  );
  makeProject(sandbox.env, work);
  gitWith(sandbox.env, ['clone', '-q', '--bare', work, bare]);
  const url = `https://github.com/acme/${name}.git`;
  gitWith(sandbox.env, ['config', '--global', '--add', `url.file://${bare}.insteadOf`, url]);
  return {
    name,
    url,
    bare,
    publish(file) {
      writeFileSync(path.join(work, file), `${file}\n`);
      gitWith(sandbox.env, ['add', '-A'], work);
      gitWith(sandbox.env, ['commit', '-qm', `add ${file}`], work);
      gitWith(sandbox.env, ['push', '-q', bare, 'HEAD:main'], work);
    },
  };
}

/** The staging folders under `.tmp/marketplaces/.staging/`, by name. */
export function stagingFolders(cx: Codex): string[] {
  const staging = path.join(cx.marketplaces, '.staging');
  return existsSync(staging) ? readdirSync(staging).sort() : [];
}

/**
 * Starts `codex plugin marketplace upgrade`, lets its `git clone` stall in the server side (an
 * `uploadpack.packObjectsHook` that waits), and kills Codex with SIGKILL mid-clone. Codex's own
 * 30-second clone timeout would have removed the staging folder; a killed Codex cannot. The git
 * children go on as orphans; `orphans` lists them (left running: kill them, or let them write).
 */
export async function killCodexMidClone(cx: Codex, cwd: string): Promise<{ staging: string; orphans: number[] }> {
  const stalled = path.join(cx.sandbox.root, 'clone-stalled');
  const hook = path.join(cx.sandbox.root, 'stall-pack-objects.sh');
  writeFileSync(hook, `#!/bin/sh\n: > '${stalled}'\nsleep 600\nexec "$@"\n`);
  chmodSync(hook, 0o755);
  gitWith(cx.sandbox.env, ['config', '--global', 'uploadpack.packObjectsHook', hook]);
  const before = new Set(stagingFolders(cx));
  const child = startRunning(cx.bin, ['plugin', 'marketplace', 'upgrade'], { cwd, env: cx.env });
  try {
    await waitUntil('the clone to stall', () => existsSync(stalled), { timeoutMs: 25_000, context: child.output });
    const orphans = treeOf(child.pid as number).slice(1);
    for (const pid of orphans) cx.sandbox.leave(pid);
    await killHard(child);
    const staging = stagingFolders(cx).filter((name) => !before.has(name));
    if (staging.length !== 1) throw new Error(`expected one new staging folder, found ${staging.join(', ')}`);
    return { staging: path.join(cx.marketplaces, '.staging', staging[0] as string), orphans };
  } finally {
    gitWith(cx.sandbox.env, ['config', '--global', '--unset', 'uploadpack.packObjectsHook']);
    await killHard(child);
  }
}

/**
 * Runs `codex plugin marketplace upgrade` under strace, which holds the first rename of the live copy
 * (into `marketplace-backup-XXXXXX/root`) for 60 s after it returns; Codex is killed in that window,
 * between its two renames, so that the backup is the only copy of the marketplace. Null when strace
 * is missing.
 */
export async function killCodexBetweenRenames(
  cx: Codex,
  source: MarketplaceSource,
  cwd: string,
): Promise<{ backup: string; staging: string } | null> {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const live = path.join(cx.marketplaces, source.name);
  const traced = startRunning(
    'strace',
    [
      '-f',
      '-qq',
      '-o',
      '/dev/null',
      '-P',
      live,
      '-e',
      'trace=rename',
      '-e',
      'inject=rename:delay_exit=60000000',
      cx.bin,
      'plugin',
      'marketplace',
      'upgrade',
    ],
    { cwd, env: cx.env },
  );
  try {
    const backup = await waitUntil(
      'the live copy to move into a backup',
      () =>
        readdirSync(cx.marketplaces).find(
          (name) => name.startsWith('marketplace-backup-') && existsSync(path.join(cx.marketplaces, name, 'root')),
        ),
      { timeoutMs: 30_000, context: traced.output },
    );
    const codexPid = treeOf(traced.pid as number).find((pid) => pid !== traced.pid);
    if (codexPid === undefined) throw new Error('Codex is not running under strace');
    process.kill(codexPid, 'SIGKILL');
    // strace reaps it only when its delay ends: a zombie is dead enough.
    await waitUntil('Codex to die', () => /^[ZX]$/.test(stateOf(codexPid) ?? 'X'), { timeoutMs: 10_000 });
    const staging = stagingFolders(cx);
    if (staging.length !== 1) throw new Error(`expected one staging folder, found ${staging.join(', ')}`);
    return {
      backup: path.join(cx.marketplaces, backup),
      staging: path.join(cx.marketplaces, '.staging', staging[0] as string),
    };
  } finally {
    await killHard(traced);
  }
}

/** The inodes that hold a lock in /proc/locks (flock and POSIX alike). */
export function lockedInodes(): Set<number> {
  const found = new Set<number>();
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    const device = line.trim().split(/\s+/)[5];
    const inode = device?.split(':')[2];
    if (inode) found.add(Number(inode));
  }
  return found;
}

/**
 * Starts `codex exec --worktree` on a model that runs a long shell command (the fake server's script
 * must answer with `exec_command`), waits until the thread's writer lock is held, runs `whileHeld`,
 * and kills Codex with SIGKILL there. `commands` holds each descendant's command line as it was before the kill.
 */
export async function killCodexMidTurn(
  cx: Codex,
  repo: string,
  shellCommand: string,
  whileHeld?: (lock: string) => Promise<void>,
): Promise<{ lock: string; orphans: number[]; commands: Map<number, string> }> {
  const locks = path.join(cx.home, 'thread-writer-locks');
  const child = startRunning(cx.bin, ['exec', '--worktree', '-s', 'danger-full-access', 'work a while'], {
    cwd: repo,
    env: cx.env,
  });
  try {
    const lock = await waitUntil(
      'a held thread writer lock',
      () => {
        if (!existsSync(locks)) return null;
        const held = lockedInodes();
        const name = readdirSync(locks).find(
          (entry) =>
            entry.endsWith('.lock') &&
            entry !== '.coordination.lock' &&
            held.has(statSync(path.join(locks, entry)).ino),
        );
        // The shell must be running too, and have started its first command (bash forks it a moment
        // after it starts), so that the kill lands mid-turn with the command's process in the tree.
        const tree = treeOf(child.pid as number).map(cmdlineOf);
        const first = (shellCommand.split(';')[0] as string).trim();
        const shell = tree.some((line) => line.includes(shellCommand)) && tree.includes(first);
        return name && shell ? path.join(locks, name) : null;
      },
      { timeoutMs: 30_000, context: child.output },
    );
    // What a test does while the session is live, its writer lock held.
    await whileHeld?.(lock);
    const orphans = treeOf(child.pid as number).slice(1);
    const commands = new Map(orphans.map((pid) => [pid, cmdlineOf(pid)]));
    for (const pid of orphans) cx.sandbox.leave(pid);
    await killHard(child);
    // Wait for the kernel to settle what dies with Codex.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { lock, orphans, commands };
  } finally {
    await killHard(child);
  }
}

/** `codex exec --worktree` in `repo`: a new managed worktree under `$CODEX_HOME/worktrees/<4 hex>/<repo name>`. */
export function codexExecInWorktree(cx: Codex, repo: string, prompt = 'say hi'): Promise<string> {
  return codex(cx, ['exec', '--worktree', '-s', 'danger-full-access', prompt], repo);
}
