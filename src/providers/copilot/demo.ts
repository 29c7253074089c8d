import path from 'node:path';
import { backdateTree, type SandboxBuilder, type SandboxContext } from '../../provider-api/sandbox.js';
import { sandboxGit, sandboxRepo, writeSandboxFile } from '../../engines/git-worktree/sandbox.js';
import { lutimes } from '../../safety/fs/write.js';

const DAY = 86_400_000;
/** Pids no process has: above any pid_max. */
const ENDED = [999_999_001, 999_999_002, 999_999_003];

/**
 * A Copilot CLI 1.0.60 user's `~/.copilot` on a machine where no Copilot ran a minute since last
 * week: the logs of three ended processes, ten days old (past Copilot's own seven days), a fresh
 * one, and the log of a process that is alive while the demo runs (the demo's own); a named
 * session and two sessions in pull-request worktrees that Copilot made beside the project
 * (`app.worktrees/`), one of them held by that live pid's in-use lock. The worktree of the ended
 * session is idle, clean, and its commit is the pull request's ref: it goes; the other stays.
 */
export const copilotSandbox: SandboxBuilder = {
  name: 'copilot',
  async build(ctx: SandboxContext): Promise<void> {
    const copilot = path.join(ctx.home, '.copilot');
    const logs = path.join(copilot, 'logs');
    const longAgo = new Date(Date.now() - 10 * DAY);
    const logOf = (when: Date, pid: number) => path.join(logs, `process-${when.getTime()}-${pid}.log`);
    const dated: Array<[string, Date]> = [];
    for (const [k, pid] of ENDED.entries()) {
      const when = new Date(longAgo.getTime() - k * DAY);
      dated.push([await writeSandboxFile(logOf(when, pid), logLines(when, 400)), when]);
    }
    dated.push([await writeSandboxFile(logOf(ctx.old, 999_999_004), logLines(ctx.old, 50)), ctx.old]);
    const alive = process.pid;
    await writeSandboxFile(logOf(longAgo, alive), logLines(longAgo, 50));

    const app = await sandboxRepo(path.join(ctx.root, 'projects', 'app'));
    const login = await pullRequestWorktree(app, 12, 'fix/login');
    const deps = await pullRequestWorktree(app, 15, 'bump-deps');
    const state = path.join(copilot, 'session-state');
    await session(state, '1c0e3a52-7a41-4c1e-9d0b-5e2f6a7b8c9d', app, 'release notes', true);
    await session(state, '2d1f4b63-8b52-4d2f-8e1c-6f3a7b8c9d0e', login, 'Review PR #12', false, alive);
    await session(state, '3e2a5c74-9c63-4e3a-9f2d-7a4b8c9d0e1f', deps, 'Review PR #15', false, ENDED[0]);
    for (const folder of [copilot, app, path.dirname(login)]) await backdateTree(folder, longAgo);
    for (const [file, when] of dated) await lutimes(file, when, when);
  },
};

/** Lines as Copilot's log writer appends them: `<ISO time> [LEVEL] message`. */
function logLines(when: Date, count: number): string {
  const at = when.toISOString();
  return Array.from({ length: count }, (_, i) => `${at} [INFO] CompactionProcessor: Utilization ${i % 100}.0%\n`).join(
    '',
  );
}

/**
 * What "Creating worktree for PR #N" does: fetch the pull request's head into
 * `refs/remotes/origin/pr/<N>` (here: a commit made on the spot), then `git worktree add -b
 * <branch> <repo>.worktrees/<branch with / as -> <that ref>`.
 */
async function pullRequestWorktree(repo: string, pr: number, branch: string): Promise<string> {
  const ref = `refs/remotes/origin/pr/${pr}`;
  await sandboxGit(repo, 'checkout', '-q', '--detach');
  await writeSandboxFile(path.join(repo, `pr-${pr}.md`), `# PR ${pr}\n`);
  await sandboxGit(repo, 'add', `pr-${pr}.md`);
  await sandboxGit(repo, 'commit', '-q', '-m', `PR ${pr}`);
  await sandboxGit(repo, 'update-ref', ref, 'HEAD');
  await sandboxGit(repo, 'checkout', '-q', 'main');
  const worktree = path.join(`${repo}.worktrees`, branch.replace(/\//g, '-'));
  await sandboxGit(repo, 'worktree', 'add', '-q', '-b', branch, worktree, ref);
  return worktree;
}

/** `session-state/<id>/` as Copilot 1.0.60 makes it: workspace.yaml, events, checkpoints; an in-use lock. */
async function session(
  state: string,
  id: string,
  cwd: string,
  name: string,
  userNamed: boolean,
  lockPid?: number,
): Promise<void> {
  const folder = path.join(state, id);
  const at = new Date(Date.now() - 10 * DAY).toISOString();
  await writeSandboxFile(
    path.join(folder, 'workspace.yaml'),
    `id: ${id}\ncwd: ${cwd}\ngit_root: ${cwd}\nbranch: main\nname: ${JSON.stringify(name)}\nuser_named: ${userNamed}\nsummary_count: 0\ncreated_at: ${at}\nupdated_at: ${at}\n`,
  );
  await writeSandboxFile(
    path.join(folder, 'events.jsonl'),
    `${JSON.stringify({ type: 'session.start', data: { sessionId: id } })}\n`,
  );
  await writeSandboxFile(path.join(folder, 'checkpoints', 'index.md'), '# Checkpoints\n');
  if (lockPid !== undefined) await writeSandboxFile(path.join(folder, `inuse.${lockPid}.lock`), `${lockPid}\n`);
}
