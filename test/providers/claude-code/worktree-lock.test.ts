import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Report } from '../../../src/model/types.js';
import { CLI, collect } from '../../helpers/cli.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import {
  addWorktree,
  commitFile,
  expectOnly,
  listedWorktrees,
  makeRepo,
  repoState,
  sh,
} from '../../helpers/git-fixtures.js';
import { gitWrapper } from '../../helpers/git-wrapper.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { sleeperIn, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, type RealUser } from '../../helpers/users.js';
import { cmdlineOf, stateOf } from '../../support/real-clis/run.js';
import { pidDomain, startOf } from './fixtures.js';
import { deadPid, living } from './processes.js';

const isRoot = process.geteuid?.() === 0;
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

/**
 * Claude Code's worktrees (`<repo>/.claude/worktrees/<name>`, branch `worktree-<name>`, the
 * repository known from `~/.claude.json`), as 2.1.332 makes them; a lock is written as Claude Code
 * writes it itself, the text and a newline in `<admin>/locked` (its fallback, `git worktree lock
 * --reason`, writes the same). Every worktree was last touched four days ago (the set's idleAfter
 * is 3d).
 */
function claudeWorktrees(dir: string) {
  const home = path.join(dir, 'home');
  const repo = makeRepo(path.join(home, 'src', 'shop'));
  put(path.join(home, '.claude.json'), JSON.stringify({ projects: { [repo]: { allowedTools: [] } } }));
  const at = (name: string) => path.join(repo, '.claude', 'worktrees', name);
  const lockedFile = (name: string) => path.join(repo, '.git', 'worktrees', name, 'locked');
  return {
    home,
    repo,
    at,
    lockedFile,
    tree(name: string, lock?: string): string {
      const folder = addWorktree(repo, at(name), `worktree-${name}`);
      if (lock !== undefined) writeFileSync(lockedFile(name), `${lock}\n`);
      return folder;
    },
    age(): void {
      backdate(dir, daysAgo(4));
    },
    pass: (extra: { reportOnly?: boolean; onPlanned?: () => void } = {}) =>
      pass({
        dir,
        only: ['worktrees'],
        env: { HOME: home },
        config: { homes: [home], minAge: '1h' },
        ...extra,
      }),
  };
}

const verdictOf = (report: Report, at: string) => {
  const item = itemAt(report, at);
  return `${item.verdict} ${item.reason}`;
};

describe('claude-code: a worktree Claude Code locked for a process that has ended (SYSTEMS.md 11.1)', () => {
  const [owner] = addUsers(1) as [RealUser];

  it('unlocks and removes it once every other check holds with the lock in place, its branch kept; other lock texts, dirty trees and unique commits stay as they are', async () => {
    const dir = tempDir();
    const w = claudeWorktrees(dir);
    const reused = await living('sleep', ['600'], { user: owner });
    const gone = [
      w.tree('agent-a1761c25a0d171d29', `claude agent agent-a1761c25a0d171d29 (pid ${deadPid()} start 4242)`),
      // Its pid runs again, as another process: one started at another moment than the lock says.
      w.tree('feature-auth', `claude session feature-auth (pid ${reused.pid} start 1)`),
      // An older version's lock: no start.
      w.tree('agent-b2', `claude agent agent-b2 (pid ${deadPid()})`),
    ];
    const other = w.tree('agent-other', 'agent running');
    const dirty = w.tree('agent-dirty', `claude agent agent-dirty (pid ${deadPid()} start 1)`);
    put(path.join(dirty, 'notes.md'), 'work in progress\n');
    const unique = w.tree('agent-unique', `claude agent agent-unique (pid ${deadPid()} start 1)`);
    commitFile(unique, 'fix.ts', 'export const fix = 1;\n');
    w.age();
    const before = inventory(w.home);
    const gitBefore = repoState(w.repo);

    const { report, exitCode } = await w.pass();

    expect(exitCode).toBe(0);
    for (const tree of gone) expect(verdictOf(report, tree), tree).toBe('deleted idle-clean');
    expect(itemAt(report, gone[0] as string).detail).toContain(
      `its git lock is stale (Claude Code's own lock "claude agent agent-a1761c25a0d171d29 (pid `,
    );
    expect(itemAt(report, gone[0] as string).detail).toMatch(/is gone\): git unlocks it right before the removal/);
    expect(itemAt(report, gone[1] as string).detail).toContain(
      `pid ${reused.pid} now runs another process (started at tick ${startOf(reused.pid)}, the lock says 1)`,
    );
    expect(verdictOf(report, other)).toBe('refused git-locked');
    expect(itemAt(report, other).detail).toContain('(agent running)');
    expect(verdictOf(report, dirty)).toBe('unfinished uncommitted-changes');
    expect(verdictOf(report, unique)).toBe('unfinished unique-commits');
    const rel = (p: string) => path.relative(w.home, p);
    expectOnly(before, inventory(w.home), {
      removed: gone.flatMap((tree) => [rel(tree), rel(path.dirname(w.lockedFile(path.basename(tree))))]),
      changedDirs: [rel(path.join(w.repo, '.claude', 'worktrees')), rel(path.join(w.repo, '.git', 'worktrees'))],
    });
    const gitAfter = repoState(w.repo);
    expect(gitAfter.branches).toEqual(gitBefore.branches);
    expect(gitAfter.refs).toBe(gitBefore.refs);
    for (const tree of gone) expect(listedWorktrees(w.repo)).not.toContain(tree);
    for (const name of ['agent-other', 'agent-dirty', 'agent-unique'])
      expect(existsSync(w.lockedFile(name))).toBe(true);
  });

  it('keeps the lock of a process that runs (a claude bg-spare daemon, a stopped session), naming its pid and command line; and a worktree a live session or any process is in', async () => {
    const dir = tempDir();
    const w = claudeWorktrees(dir);
    // The daemon some versions name in the lock instead of the session (its command line as ps shows it).
    const daemon = await living('/bin/bash', ['-c', 'sleep 0.3; exec -a "claude bg-spare" sleep 600'], { user: owner });
    await waitFor(() => cmdlineOf(daemon.pid).startsWith('claude bg-spare'));
    const stopped = await living('sleep', ['600'], { user: owner });
    process.kill(stopped.pid, 'SIGSTOP');
    await waitFor(() => stateOf(stopped.pid) === 'T');
    const byDaemon = w.tree('agent-spare', `claude agent agent-spare (pid ${daemon.pid} start ${startOf(daemon.pid)})`);
    const byStopped = w.tree('feature-paused', `claude session feature-paused (pid ${stopped.pid})`);
    const recorded = w.tree('agent-recorded', `claude agent agent-recorded (pid ${deadPid()} start 1)`);
    const occupied = w.tree('agent-occupied', `claude agent agent-occupied (pid ${deadPid()} start 1)`);
    // A live session works in one: its registry record (this very process runs, with its start).
    put(
      path.join(w.home, '.claude', 'sessions', `${process.pid}.json`),
      JSON.stringify({
        pid: process.pid,
        sessionId: randomUUID(),
        cwd: path.join(recorded, 'src'),
        procStart: startOf(process.pid),
        pidDomain: pidDomain(),
      }),
    );
    w.age();
    sleeperIn(occupied);
    const before = inventory(w.home);

    const { report } = await w.pass();

    expect(verdictOf(report, byDaemon)).toBe('refused git-locked');
    expect(itemAt(report, byDaemon).detail).toContain(`pid ${daemon.pid} runs (claude bg-spare 600`);
    expect(itemAt(report, byDaemon).detail).toContain('Claude Code still claims it');
    expect(verdictOf(report, byStopped)).toBe('refused git-locked');
    expect(itemAt(report, byStopped).detail).toContain(`pid ${stopped.pid} runs (sleep 600`);
    expect(verdictOf(report, recorded)).toBe('kept session-live');
    expect(itemAt(report, recorded).detail).toContain(
      `Claude Code is running in it: ${path.join(w.home, '.claude', 'sessions')}`,
    );
    expect(verdictOf(report, occupied)).toBe('refused in-use');
    expectOnly(before, inventory(w.home), {});
  });

  it('puts the lock back byte for byte when git refuses the removal after the unlock', async () => {
    const dir = tempDir();
    const w = claudeWorktrees(dir);
    const tree = w.tree('agent-late', `claude agent agent-late (pid ${deadPid()} start 77)`);
    w.age();
    const lockBefore = lstatSync(w.lockedFile('agent-late'));
    const bytes = readFileSync(w.lockedFile('agent-late'));
    // Between the unlock and the removal, a file appears in the tree: git itself refuses it.
    process.env.PATH = `${gitWrapper(dir, `case " $* " in *" worktree remove "*) for last; do :; done; echo late > "$last/late.txt";; esac`)}:${savedPath}`;

    const { report } = await w.pass();

    expect(verdictOf(report, tree)).toBe('unfinished uncommitted-changes');
    expect(itemAt(report, tree).detail).toContain(
      `git worktree remove refused it, nothing was removed: fatal: '${tree}' contains modified or untracked files`,
    );
    expect(itemAt(report, tree).detail).toContain(`its lock ${w.lockedFile('agent-late')} was put back as it was`);
    expect(readFileSync(w.lockedFile('agent-late'))).toEqual(bytes);
    const lockAfter = lstatSync(w.lockedFile('agent-late'));
    expect([lockAfter.mode, lockAfter.uid, lockAfter.mtimeMs]).toEqual([
      lockBefore.mode,
      lockBefore.uid,
      lockBefore.mtimeMs,
    ]);
    expect(sh(w.repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${tree}\nHEAD`);
    expect(sh(w.repo, 'worktree', 'list', '--porcelain')).toMatch(
      /locked claude agent agent-late \(pid \d+ start 77\)/,
    );
  });

  it('stops, the lock as it now is, when the lock is rewritten after the plan', async () => {
    const dir = tempDir();
    const w = claudeWorktrees(dir);
    const tree = w.tree('agent-again', `claude agent agent-again (pid ${deadPid()} start 5)`);
    w.age();
    const rewritten = `claude agent agent-again (pid ${deadPid()} start 6)\n`;

    // Rewritten with its old mtime: only the bytes tell it from the lock that was judged.
    const rewrite = () => {
      writeFileSync(w.lockedFile('agent-again'), rewritten);
      utimesSync(w.lockedFile('agent-again'), daysAgo(4), daysAgo(4));
    };

    const { report } = await w.pass({ onPlanned: rewrite });

    expect(verdictOf(report, tree)).toBe('refused changed-during-inspection');
    expect(itemAt(report, tree).detail).toContain(
      `the lock ${w.lockedFile('agent-again')} of ${tree} changed since it was judged`,
    );
    expect(readFileSync(w.lockedFile('agent-again'), 'utf8')).toBe(rewritten);
    expect(listedWorktrees(w.repo)).toContain(tree);
  });

  it.runIf(isRoot)(
    'refuses liveness-unknown in a PID namespace of its own (rule 19), and touches nothing',
    async () => {
      const dir = tempDir();
      const w = claudeWorktrees(dir);
      const tree = w.tree('agent-blind', `claude agent agent-blind (pid ${deadPid()} start 9)`);
      w.age();
      const config = path.join(dir, 'blind.yaml');
      const reportDir = path.join(dir, 'report');
      writeFileSync(config, stringify({ homes: [w.home], minAge: '1h', reportDir }));
      const before = inventory(w.home);
      const argv = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, CLI, 'run'];
      const child = spawn(argv[0] as string, [...argv.slice(1), '--config', config, '--only', 'worktrees'], {
        env: { ...process.env, HOME: w.home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(child, 120_000);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as Report;

      expect(report.processCheck).toMatchObject({ visible: false });
      expect(verdictOf(report, tree)).toBe('refused liveness-unknown');
      expect(itemAt(report, tree).detail).toContain('whether pid');
      expect(itemAt(report, tree).detail).toContain('the processes cannot be seen');
      expectOnly(before, inventory(w.home), {});
    },
    120_000,
  );
});
