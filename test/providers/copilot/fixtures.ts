import { spawn, type ChildProcess } from 'node:child_process';
import { lutimesSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { put } from '../../helpers/fs-fixtures.js';
import { makeRepo, sh } from '../../helpers/git-fixtures.js';
import { pass, type PassSetup } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * A home with Copilot CLI's state laid out as 1.0.60 writes it (real-cli.slow.test.ts checks this
 * layout against the real CLI): `~/.copilot/logs/process-<ms>-<pid>.log`, `session-state/<id>/`
 * with workspace.yaml, events.jsonl, checkpoints/ and in-use locks; and a project repository
 * beside the home, from which pull-request worktrees are made.
 */
export interface CopilotWorld {
  root: string;
  home: string;
  copilot: string;
  logs: string;
  repo: string;
  /** Where a pass writes its config and report (outside the inventoried tree). */
  work: string;
}

export function copilotWorld(): CopilotWorld {
  const root = tempDir('aj-copilot-');
  const home = path.join(root, 'home');
  const copilot = path.join(home, '.copilot');
  const logs = path.join(copilot, 'logs');
  mkdirSync(logs, { recursive: true });
  put(path.join(copilot, 'config.json'), '{\n  "firstLaunchAt": "2026-11-01T09:00:00.000Z"\n}\n');
  const repo = makeRepo(path.join(root, 'projects', path.basename(home), 'app'));
  return { root, home, copilot, logs, repo, work: tempDir('aj-copilot-run-') };
}

/** Pids no process has (above any pid_max). */
let nextEnded = 999_990_000;
export const endedPid = (): number => nextEnded++;

/** `logs/process-<start ms>-<pid>.log`, last written `when`, lines as Copilot's log writer appends them. */
export function logFile(logs: string, pid: number, when: Date, startedMs = when.getTime()): string {
  const file = put(
    path.join(logs, `process-${startedMs}-${pid}.log`),
    `${when.toISOString()} [INFO] Starting Copilot CLI: 1.0.60\n${when.toISOString()} [INFO] Node.js version: v24.16.0\n`,
  );
  lutimesSync(file, when, when);
  return file;
}

export interface SessionSpec {
  id: string;
  cwd?: string;
  gitRoot?: string | null;
  name?: string;
  userNamed?: boolean;
  /** Pids of `inuse.<pid>.lock` files. */
  locks?: number[];
  /** No workspace.yaml at all. */
  noWorkspace?: boolean;
}

/** `session-state/<id>/` as Copilot 1.0.60 makes it. */
export function session(w: Pick<CopilotWorld, 'copilot'>, spec: SessionSpec): string {
  const folder = path.join(w.copilot, 'session-state', spec.id);
  const at = '2026-11-01T09:00:00.000Z';
  const cwd = spec.cwd ?? '/nowhere';
  if (!spec.noWorkspace) {
    const gitRoot = spec.gitRoot === undefined ? cwd : spec.gitRoot;
    put(
      path.join(folder, 'workspace.yaml'),
      [
        `id: ${spec.id}`,
        `cwd: ${cwd}`,
        ...(gitRoot === null ? [] : [`git_root: ${gitRoot}`]),
        'branch: main',
        `name: ${JSON.stringify(spec.name ?? 'say hi')}`,
        'client_name: github/cli',
        `user_named: ${spec.userNamed ?? false}`,
        'summary_count: 0',
        `created_at: ${at}`,
        `updated_at: ${at}`,
        '',
      ].join('\n'),
    );
  }
  put(
    path.join(folder, 'events.jsonl'),
    `${JSON.stringify({ type: 'session.start', data: { sessionId: spec.id } })}\n`,
  );
  put(path.join(folder, 'checkpoints', 'index.md'), '# Checkpoint History\n');
  mkdirSync(path.join(folder, 'files'), { recursive: true });
  mkdirSync(path.join(folder, 'research'), { recursive: true });
  for (const pid of spec.locks ?? []) put(path.join(folder, `inuse.${pid}.lock`), `${pid}\n`);
  return folder;
}

let nextSession = 1;
/** A session id of Copilot's shape (a UUID). */
export function sessionId(): string {
  return `2f178e29-f4a4-48cc-bf7a-${(nextSession++).toString(16).padStart(12, '0')}`;
}

/**
 * What Copilot's "Creating worktree for PR #N" does (1.0.60 `GQr`): the pull request's head is
 * fetched into `refs/remotes/origin/pr/<N>` (here: a commit made on the spot), then `git worktree
 * add -b <branch> <main worktree>.worktrees/<branch with / as -> <that ref>`.
 */
export function prWorktree(repo: string, pr: number, branch: string): string {
  sh(repo, 'checkout', '-q', '--detach');
  put(path.join(repo, `pr-${pr}.md`), `# PR ${pr}\n`);
  sh(repo, 'add', `pr-${pr}.md`);
  sh(repo, 'commit', '-q', '-m', `PR ${pr}`);
  sh(repo, 'update-ref', `refs/remotes/origin/pr/${pr}`, 'HEAD');
  sh(repo, 'checkout', '-q', 'main');
  const worktree = path.join(`${repo}.worktrees`, branch.replace(/\//g, '-'));
  sh(repo, 'worktree', 'add', '-q', '-b', branch, worktree, `refs/remotes/origin/pr/${pr}`);
  return worktree;
}

/** One pass over the world's home, copilot and worktrees only, minAge 1h. */
export function runCopilot(
  w: Pick<CopilotWorld, 'home' | 'work'>,
  options: Partial<PassSetup> & { homes?: string[] } = {},
): Promise<PassResult> {
  const { homes, config, ...rest } = options;
  return pass({
    dir: w.work,
    config: { homes: homes ?? [w.home], minAge: '1h', ...config },
    only: ['copilot', 'worktrees'],
    env: { HOME: w.home },
    ...rest,
  });
}

/** `verdict reason` of the item at `p`, or `absent`. */
export function verdictOf(result: PassResult, p: string): string {
  const item = result.report.items.find((each) => each.path === p);
  return item ? `${item.verdict} ${item.reason}` : 'absent';
}

export const detailOf = (result: PassResult, p: string): string =>
  result.report.items.find((item) => item.path === p)?.detail ?? '';

/**
 * A live process that passes for Copilot CLI: `argv[0]` `copilot` (a `sleep` under that name), with
 * the environment given, run as `user` where given; ready once it has exec'd.
 */
export async function copilotProcess(
  options: { env?: Record<string, string>; cwd?: string; user?: { uid: number; gid: number } } = {},
): Promise<ChildProcess> {
  const child = spawn('sleep', ['600'], {
    argv0: 'copilot',
    cwd: options.cwd ?? '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: 'ignore',
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
  });
  living.push(child);
  const cmdline = () => {
    try {
      return readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  await waitFor(() => cmdline() === ['copilot', '600', ''].join('\0'));
  return child;
}

const living: ChildProcess[] = [];

afterEach(() => {
  for (const child of living.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Ends a process and waits until the kernel has reaped it. */
export function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
