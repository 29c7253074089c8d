import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { expectOnly, listedWorktrees } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { waitFor } from '../../helpers/processes.js';
import { stateOf } from '../../support/real-clis/run.js';
import {
  copilotProcess,
  copilotWorld,
  detailOf,
  ended,
  endedPid,
  prWorktree,
  runCopilot,
  session,
  sessionId,
  verdictOf,
} from './fixtures.js';

const rel = (root: string, file: string) => path.relative(root, file);

describe('copilot: sessions are reported, never deleted', () => {
  it('says of each its size, whether the user named it, where it worked and whether a live process has it open', async () => {
    const w = copilotWorld();
    const holder = await copilotProcess();
    const named = session(w, { id: sessionId(), cwd: w.repo, name: 'release notes', userNamed: true });
    const live = session(w, { id: sessionId(), cwd: w.repo, locks: [holder.pid as number] });
    const left = endedPid();
    const crashed = session(w, { id: sessionId(), cwd: w.repo, locks: [left] });
    const bare = session(w, { id: sessionId(), noWorkspace: true });
    backdate(w.root, daysAgo(90));
    const before = inventory(w.root);

    const result = await runCopilot(w);

    for (const folder of [named, live, crashed, bare]) expect(verdictOf(result, folder)).toBe('kept copilot-session');
    expect(detailOf(result, named)).toContain(
      `named "release notes" by the user (prune skips it), working in ${w.repo}`,
    );
    expect(detailOf(result, live)).toContain(`in use by process ${holder.pid} (copilot)`);
    expect(detailOf(result, crashed)).toContain(`not in use (its in-use locks name pid ${left}, which has ended)`);
    expect(detailOf(result, bare)).toContain('(no workspace.yaml)');
    expect(detailOf(result, live)).toContain('`/session prune --older-than <days>`');
    expect(result.report.items.find((item) => item.path === named)?.bytes).toBeGreaterThan(0);
    expectOnly(before, inventory(w.root), {});
  });
});

describe('copilot: a pull request’s worktree, judged by the set `copilot`', () => {
  it('is kept while a session working in it has a live in-use lock, stopped or not; judged by the set’s rule once it ends', async () => {
    const w = copilotWorld();
    const worktree = prWorktree(w.repo, 12, 'fix/login');
    const other = prWorktree(w.repo, 15, 'bump-deps');
    // Copilot is not inside the worktree (its working directory is `/`): only its lock tells.
    const copilot = await copilotProcess();
    session(w, { id: sessionId(), cwd: worktree, locks: [copilot.pid as number] });
    session(w, { id: sessionId(), cwd: other, locks: [endedPid()] });
    backdate(w.root, daysAgo(10));
    const before = inventory(w.root);

    const live = await runCopilot(w);
    expect(verdictOf(live, worktree)).toBe('kept session-in-use');
    expect(detailOf(live, worktree)).toContain(`set copilot (Copilot CLI): Copilot CLI session`);
    expect(detailOf(live, worktree)).toContain(
      `works in ${worktree} inside it; its in-use lock names process ${copilot.pid} (copilot), which is alive`,
    );
    expect(verdictOf(live, other)).toBe('deleted idle-clean');

    copilot.kill('SIGSTOP');
    await waitFor(() => stateOf(copilot.pid as number) === 'T');
    const stopped = await runCopilot(w);
    expect(verdictOf(stopped, worktree)).toBe('kept session-in-use');

    await ended(copilot);
    const after = await runCopilot(w);
    expect(verdictOf(after, worktree)).toBe('deleted idle-clean');
    expect(listedWorktrees(w.repo)).toEqual([w.repo]);
    // git drops its worktrees folder with the last entry in it.
    const admins = rel(w.root, path.join(w.repo, '.git', 'worktrees'));
    expectOnly(before, inventory(w.root), {
      removed: [rel(w.root, worktree), rel(w.root, other), admins],
      changedDirs: [rel(w.root, `${w.repo}.worktrees`), rel(w.root, path.join(w.repo, '.git'))],
    });
  });

  it('knows the worktree by identity: a cwd recorded through a link keeps it, and one that leads nowhere keeps it too', async () => {
    const w = copilotWorld();
    const worktree = prWorktree(w.repo, 12, 'fix/login');
    const copilot = await copilotProcess();
    // An ended session in the repository names the folder of its pull requests' worktrees.
    session(w, { id: sessionId(), cwd: w.repo, locks: [endedPid()] });
    // The user reaches the projects through a link; Copilot wrote that spelling.
    const link = path.join(w.home, 'code');
    symlinkSync(path.dirname(w.repo), link);
    const id = sessionId();
    const inWorktree = path.join(link, 'app.worktrees', 'fix-login');
    session(w, { id, cwd: path.join(inWorktree, 'src'), gitRoot: inWorktree, locks: [copilot.pid as number] });
    backdate(w.root, daysAgo(10));

    const linked = await runCopilot(w, { reportOnly: true });
    expect(verdictOf(linked, worktree)).toBe('kept session-in-use');
    expect(linked.report.items.filter((item) => item.kind === 'worktree')).toHaveLength(1);

    // The session's working directory is now on a disk that is not mounted here.
    const disk = path.join(w.home, 'disk');
    symlinkSync('/nonexistent-disk-c0p1', disk);
    const unmounted = path.join(disk, 'app.worktrees', 'fix-login');
    session(w, { id, cwd: unmounted, gitRoot: unmounted, locks: [copilot.pid as number] });
    backdate(w.root, daysAgo(10));
    const unresolved = await runCopilot(w, { reportOnly: true });
    expect(verdictOf(unresolved, worktree)).toBe('kept session-in-use');
    expect(detailOf(unresolved, worktree)).toContain('which cannot be resolved');
    expect(detailOf(unresolved, worktree)).toContain('so it counts as inside');

    await ended(copilot);
    const after = await runCopilot(w, { reportOnly: true });
    expect(verdictOf(after, worktree)).toBe('would-delete idle-clean');
  });

  it('a session that starts working in the worktree after the plan stops its removal', async () => {
    const w = copilotWorld();
    const worktree = prWorktree(w.repo, 12, 'fix/login');
    const id = sessionId();
    session(w, { id, cwd: worktree });
    backdate(w.root, daysAgo(10));
    const before = inventory(w.root, { exclude: [path.join(w.home, '.copilot', 'session-state')] });

    const result = await runCopilot(w, {
      onPlanned: async () => {
        const copilot = await copilotProcess();
        session(w, { id, cwd: worktree, locks: [copilot.pid as number] });
      },
    });

    expect(verdictOf(result, worktree)).toBe('refused session-in-use');
    expect(detailOf(result, worktree)).toContain('judged again just before the delete');
    expect(listedWorktrees(w.repo)).toHaveLength(2);
    expectOnly(before, inventory(w.root, { exclude: [path.join(w.home, '.copilot', 'session-state')] }), {});
  });

  it('finds no worktree in a folder no session names', async () => {
    const w = copilotWorld();
    const worktree = prWorktree(w.repo, 12, 'fix/login');
    mkdirSync(path.join(w.copilot, 'session-state'), { recursive: true });
    backdate(w.root, daysAgo(10));

    const result = await runCopilot(w);

    expect(verdictOf(result, worktree)).toBe('absent');
  });
});
