import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { tempDir } from '../../helpers/temp.js';
import { giveTo, type RealUser } from '../../helpers/users.js';
import type { Reply, Turn } from './fake-model-server.mjs';
import type { NpmCli } from './npm-cli.js';
import { killHard, startRunning, stateOf, treeOf, waitUntil } from './run.js';
import type { CliSandbox } from './sandbox.js';

/**
 * Claude Code (npm `@anthropic-ai/claude-code`; since 2.1 its `bin/claude.exe` is a stub that the
 * postinstall script replaces with the native binary of `@anthropic-ai/claude-code-linux-x64`,
 * which is what runs here, scripts being off).
 */
export const CLAUDE_CODE: NpmCli = {
  name: '@anthropic-ai/claude-code',
  version: '2.1.332',
  bin: '@anthropic-ai/claude-code-linux-x64/claude',
  platforms: ['linux-x64'],
};

export interface ClaudeCode {
  bin: string;
  sandbox: CliSandbox;
  /** `~/.claude`, or the `CLAUDE_CONFIG_DIR` it runs with. */
  config: string;
  /** Whom it runs as: the sandbox is that user's. */
  user: RealUser;
}

/**
 * Claude Code on the fake Messages API, run by `user` in a sandbox that user owns: every
 * claude-code pass of the tests running beside it reads the running Claude Code of its home's
 * owner, and must never find this one (nor the shells it starts) among root's. A first start needs
 * `hasCompletedOnboarding`; no update or telemetry traffic. With `configDir` (a second profile such
 * as `~/.claude-work`), it runs with `CLAUDE_CONFIG_DIR` set to it, where it then keeps its
 * `.claude.json` and its registry.
 */
export function claudeIn(
  installed: string,
  sandbox: CliSandbox,
  port: number,
  options: { user: RealUser; configDir?: string },
): ClaudeCode {
  const { user, configDir } = options;
  const state = JSON.stringify({ hasCompletedOnboarding: true });
  writeFileSync(path.join(sandbox.home, '.claude.json'), state);
  if (configDir) {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(path.join(configDir, '.claude.json'), state);
  }
  Object.assign(sandbox.env, {
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: 'x',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...(configDir ? { CLAUDE_CONFIG_DIR: configDir } : {}),
  });
  giveTo(sandbox.root, user);
  return { bin: reachableBy(installed), sandbox, config: configDir ?? path.join(sandbox.home, '.claude'), user };
}

/**
 * The installed binary at a path any user may run it from (the cache of installs is root's alone):
 * a hard link in a folder of its own, never handed to the user (a link shares the install's owner),
 * or a copy where the cache is on another file system.
 */
function reachableBy(installed: string): string {
  const dir = tempDir('aj-claude-bin-');
  chmodSync(dir, 0o755);
  const bin = path.join(dir, 'claude');
  try {
    linkSync(installed, bin);
  } catch {
    copyFileSync(installed, bin);
    chmodSync(bin, 0o755);
  }
  return bin;
}

/** The users Claude Code ran as in this test: every process of theirs ends with it. */
const runners = new Set<RealUser>();
const started: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map(killHard));
  // Its background shells and whatever they start meanwhile, Claude Code having died or not.
  for (const user of runners)
    await waitUntil(`the processes of ${user.name} to end`, () => {
      const left = processesOf(user.uid);
      for (const pid of left) kill(pid);
      return left.length === 0;
    });
  runners.clear();
});

/** The processes the uid runs, zombies aside (dead, waiting for their parent). */
function processesOf(uid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && stateOf(Number(name)) !== 'Z')
    .filter((name) => {
      try {
        return /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] === String(uid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The exit code of a Claude Code run once it has ended (at once when it has). */
export function endOf(running: RunningClaude): Promise<number | null> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * `claude <args>` run by the sandbox's user in `cwd` (setpriv execs it: the pid is Claude Code's),
 * left running; it and every process of its user end with the test. The project, made by the test,
 * is the user's first, as a user's own repository is.
 */
export function startClaude(cc: ClaudeCode, cwd: string, args: string[]): ReturnType<typeof startRunning> {
  giveTo(cwd, cc.user);
  runners.add(cc.user);
  const asUser = [`--reuid=${cc.user.uid}`, `--regid=${cc.user.gid}`, '--clear-groups', '--'];
  const child = startRunning('setpriv', [...asUser, cc.bin, ...args], {
    cwd,
    env: cc.sandbox.env,
    timeoutMs: 300_000,
  });
  started.push(child);
  return child;
}

/** The prompt that makes `largeOutputScript` print a large output, then wait in a foreground Bash call. */
export const LARGE_OUTPUT_PROMPT = 'print a lot, then wait';

/** What that Bash call waits with: 2.1.332 blocks a standalone `sleep` of that length. */
export const WAITING_COMMAND = 'tail -f /dev/null';

/**
 * The fake model's part for `LARGE_OUTPUT_PROMPT`: a Bash call whose output is too large for the
 * conversation (Claude Code keeps it under the session's `tool-results/`), then a command that
 * waits in the foreground until it is killed. Undefined for any other prompt.
 */
export function largeOutputScript(turn: Turn): Reply | undefined {
  if (!JSON.stringify(turn.body).includes(LARGE_OUTPUT_PROMPT)) return undefined;
  if (turn.toolResults === 0)
    return { tool: { name: 'Bash', input: { command: 'seq 1 300000', description: 'print a lot' } } };
  if (turn.toolResults === 1)
    return { tool: { name: 'Bash', input: { command: WAITING_COMMAND, description: 'wait', timeout: 600_000 } } };
  return { text: 'Done.' };
}

/** The prompt that makes the script below start `command` as a background Bash task. */
const backgroundPrompt = (command: string) => `run in the background: ${command}`;

/**
 * The fake model's part: asked with `backgroundPrompt(command)`, it calls Bash with
 * `run_in_background`, then ends the turn.
 */
export function backgroundTaskScript(turn: Turn): Reply | undefined {
  const asked = /run in the background: (.*?)"/.exec(JSON.stringify(turn.body));
  if (!asked || turn.toolResults > 0) return { text: 'Done.' };
  const command = JSON.parse(`"${asked[1]}"`) as string;
  return { tool: { name: 'Bash', input: { command, description: 'background task', run_in_background: true } } };
}

/** `<root>/<slug>/<session>/tasks/<id>.output` files under a `claude-<uid>` root. */
export function taskOutputs(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\/tasks\/[^/]+\.output$/.test(name))
    .map((name) => path.join(root, name))
    .sort();
}

export interface RunningClaude {
  pid: number;
  /** The task's output file, once it has bytes. */
  output: string;
  /** The background shell and what it started. */
  shells: number[];
  child: ReturnType<typeof startRunning>;
}

/**
 * `claude -p <prompt> --allowedTools Bash` run by the sandbox's user (setpriv execs it: the pid is
 * Claude Code's) with a background task running `command`; returns once the task's output has
 * bytes. A `-p` run waits for its background tasks before it exits. The project, made by the test,
 * is the user's first, as a user's own repository is.
 */
export async function startClaudeWithBackgroundTask(
  cc: ClaudeCode,
  cwd: string,
  command: string,
  root: string,
): Promise<RunningClaude> {
  const child = startClaude(cc, cwd, ['-p', backgroundPrompt(command), '--allowedTools', 'Bash']);
  const before = new Set(taskOutputs(root));
  const output = await waitUntil(
    'the background task to write its output',
    () => taskOutputs(root).find((file) => !before.has(file) && statSync(file).size > 0),
    { timeoutMs: 60_000, context: child.output },
  );
  const shells = treeOf(child.pid as number).slice(1);
  for (const pid of shells) cc.sandbox.leave(pid);
  return { pid: child.pid as number, output, shells, child };
}
