import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reply, Turn } from './fake-model-server.mjs';
import type { NpmCli } from './npm-cli.js';
import { startRunning, treeOf, waitUntil } from './run.js';
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
}

/**
 * Claude Code on the fake Messages API. A first start needs `hasCompletedOnboarding`; no update or
 * telemetry traffic. With `configDir` (a second profile such as `~/.claude-work`), it runs with
 * `CLAUDE_CONFIG_DIR` set to it, where it then keeps its `.claude.json` and its registry.
 */
export function claudeIn(bin: string, sandbox: CliSandbox, port: number, configDir?: string): ClaudeCode {
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
  return { bin, sandbox, config: configDir ?? path.join(sandbox.home, '.claude') };
}

/** The exit code of a Claude Code run once it has ended (at once when it has). */
export function endOf(running: RunningClaude): Promise<number | null> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
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
 * `claude -p <prompt> --allowedTools Bash` (as root, `--dangerously-skip-permissions` is refused)
 * with a background task running `command`; returns once the task's output has bytes. A `-p` run
 * waits for its background tasks before it exits.
 */
export async function startClaudeWithBackgroundTask(
  cc: ClaudeCode,
  cwd: string,
  command: string,
  root: string,
): Promise<RunningClaude> {
  const child = startRunning(cc.bin, ['-p', backgroundPrompt(command), '--allowedTools', 'Bash'], {
    cwd,
    env: cc.sandbox.env,
    timeoutMs: 300_000,
  });
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
