import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TerminalRun {
  /** Everything the pane showed, scrollback first, as a person scrolling up would read it. */
  screen: string;
  /** The bytes the command wrote to its terminal, escapes and carriage returns included. */
  raw: string;
  /** The command's exit status. */
  status: number;
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `shell` in a real terminal, a detached tmux pane of `columns` × `rows` with a long
 * scrollback, until it exits. Inside the pane util-linux's `script` gives the command its own
 * pseudo-terminal and records the bytes written to it; its exit status is written to a file, and
 * the pane is left as it is, to be read.
 */
export async function inTerminal(
  shell: string,
  options: {
    env?: NodeJS.ProcessEnv;
    columns?: number;
    rows?: number;
    timeoutMs?: number;
    /** Keys a person types (tmux send-keys names: `C-c`) once the command has written `once`. */
    type?: { once: RegExp; keys: string[] };
  } = {},
): Promise<TerminalRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aj-terminal-'));
  const socket = path.join(dir, 'tmux.sock');
  const conf = path.join(dir, 'tmux.conf');
  const raw = path.join(dir, 'raw');
  const exit = path.join(dir, 'exit');
  writeFileSync(conf, 'set -g history-limit 100000\nset -g status off\n');
  const env = { ...process.env, ...options.env, TERM: 'xterm-256color' };
  const tmux = (...args: string[]): string => {
    const result = spawnSync('tmux', ['-S', socket, '-f', conf, ...args], { encoding: 'utf8', env });
    if (result.status !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr}`);
    return result.stdout;
  };
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'run', '-S', '-', '-E', '-');
  const timeoutMs = options.timeoutMs ?? 120_000;
  try {
    const pane = `script -qfec ${quote(shell)} ${quote(raw)}; echo $? > ${quote(exit)}; exec sleep 3600`;
    const [columns, rows] = [String(options.columns ?? 160), String(options.rows ?? 40)];
    tmux('new-session', '-d', '-s', 'run', '-x', columns, '-y', rows, pane);
    const deadline = Date.now() + timeoutMs;
    let typing = options.type;
    while (!existsSync(exit) || readFileSync(exit, 'utf8') === '') {
      if (Date.now() > deadline) throw new Error(`still running after ${timeoutMs} ms: ${shell}\n${screen()}`);
      if (typing && existsSync(raw) && typing.once.test(readFileSync(raw, 'utf8'))) {
        tmux('send-keys', '-t', 'run', ...typing.keys);
        typing = undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, typing ? 10 : 100));
    }
    return { screen: screen(), raw: readFileSync(raw, 'utf8'), status: Number(readFileSync(exit, 'utf8')) };
  } finally {
    spawnSync('tmux', ['-S', socket, 'kill-server'], { env });
    rmSync(dir, { recursive: true, force: true });
  }
}
