import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';

/** HOME, the XDG folders and TMPDIR inside `root`, and nothing of this machine's own tools or git config. */
export interface CliSandbox {
  root: string;
  home: string;
  tmp: string;
  env: NodeJS.ProcessEnv;
  /** Processes a CLI left running (a background shell, an orphaned git): killed after the test. */
  leave(pid: number): void;
}

export function cliSandbox(root: string, extraEnv: NodeJS.ProcessEnv = {}): CliSandbox {
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    TMPDIR: tmp,
    GIT_CONFIG_NOSYSTEM: '1',
    npm_config_update_notifier: 'false',
    ...extraEnv,
  };
  for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
  // The CLIs commit in their own repositories; they must not depend on this machine's identity.
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Ana\n\temail = ana@example.test\n');
  return { root, home, tmp, env, leave: (pid) => strays.push({ pid, start: startOf(pid) }) };
}

/** Field 22 of /proc/<pid>/stat: with the pid, who a process is. */
export function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const strays: Array<{ pid: number; start: string | null }> = [];

afterEach(() => {
  for (const { pid, start } of strays.splice(0)) {
    // Only the very process that was left, never a later one that got its pid.
    if (start === null || startOf(pid) !== start) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});
