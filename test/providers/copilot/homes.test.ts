import { lutimesSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { expectOnly } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { addUsers, giveTo } from '../../helpers/users.js';
import {
  copilotProcess,
  copilotWorld,
  detailOf,
  ended,
  endedPid,
  logFile,
  prWorktree,
  runCopilot,
  session,
  sessionId,
  verdictOf,
} from './fixtures.js';

const isRoot = process.geteuid?.() === 0;
const rel = (root: string, file: string) => path.relative(root, file);

describe('copilot: every Copilot home is read (rule 27)', () => {
  it('$COPILOT_HOME of the pass’s own home is a home of its own', async () => {
    const w = copilotWorld();
    const profile = path.join(w.root, 'profiles', 'work');
    const old = logFile(path.join(profile, 'logs'), endedPid(), daysAgo(9));
    const young = logFile(path.join(profile, 'logs'), endedPid(), daysAgo(1));
    const before = inventory(w.root);

    const result = await runCopilot(w, { env: { HOME: w.home, COPILOT_HOME: profile } });

    expect(result.exitCode).toBe(0);
    expect(verdictOf(result, old)).toBe('deleted log-retention');
    expect(verdictOf(result, young)).toBe('kept log-retained');
    expect(result.report.providers.filter((root) => root.provider === 'copilot').map((root) => root.root)).toEqual([
      w.copilot,
      profile,
    ]);
    expectOnly(before, inventory(w.root), {
      removed: [rel(w.root, old)],
      changedDirs: [rel(w.root, path.join(profile, 'logs'))],
    });
  });

  it('the COPILOT_HOME of a live Copilot is read too: its session keeps the worktree it works in', async () => {
    const w = copilotWorld();
    const worktree = prWorktree(w.repo, 12, 'fix/login');
    // `~/.copilot` knows the repository from an ended session; the live one is in a profile only the process names.
    session(w, { id: sessionId(), cwd: w.repo, locks: [endedPid()] });
    const profile = path.join(w.root, 'profiles', 'review');
    const copilot = await copilotProcess({ env: { COPILOT_HOME: profile } });
    session({ copilot: profile }, { id: sessionId(), cwd: worktree, locks: [copilot.pid as number] });
    const old = logFile(path.join(profile, 'logs'), endedPid(), daysAgo(9));
    backdate(w.root, daysAgo(10));
    lutimesSync(old, daysAgo(9), daysAgo(9));

    const live = await runCopilot(w, { reportOnly: true });
    expect(verdictOf(live, worktree)).toBe('kept session-in-use');
    expect(verdictOf(live, old)).toBe('would-delete log-retention');
    expect(live.report.providers.map((root) => root.root)).toContain(profile);

    await ended(copilot);
    const after = await runCopilot(w, { reportOnly: true });
    expect(verdictOf(after, worktree)).toBe('would-delete idle-clean');
    // Nothing names the profile any more: it is not looked at.
    expect(verdictOf(after, old)).toBe('absent');
  });

  it('an unreachable COPILOT_HOME (a link to a disk not mounted here) is a root that is not ok, and refuses the worktrees its sessions could keep', async () => {
    const w = copilotWorld();
    const worktree = prWorktree(w.repo, 12, 'fix/login');
    session(w, { id: sessionId(), cwd: worktree, locks: [endedPid()] });
    const old = logFile(w.logs, endedPid(), daysAgo(9));
    const profile = path.join(w.home, '.copilot-work');
    symlinkSync('/nonexistent-disk-c0p2/copilot', profile);
    backdate(w.root, daysAgo(10));
    lutimesSync(old, daysAgo(9), daysAgo(9));
    const before = inventory(w.root);

    const result = await runCopilot(w, { env: { HOME: w.home, COPILOT_HOME: profile } });

    expect(result.exitCode).toBe(1);
    expect(result.report.providers.find((root) => root.root === profile)).toMatchObject({
      ok: false,
      error: expect.stringContaining(`${profile} is a link to /nonexistent-disk-c0p2/copilot, which is not there`),
    });
    expect(verdictOf(result, worktree)).toBe('refused source-unreadable');
    expect(detailOf(result, worktree)).toContain(
      'a Copilot CLI session may work in it, but the Copilot CLI home cannot be read',
    );
    // What `~/.copilot` alone decides goes on.
    expect(verdictOf(result, old)).toBe('deleted log-retention');
    expectOnly(before, inventory(w.root), { removed: [rel(w.root, old)], changedDirs: [rel(w.root, w.logs)] });
  });

  it('a ~/.copilot that is a link to nothing is never taken for a Copilot that is not installed', async () => {
    const w = copilotWorld();
    rmSync(w.copilot, { recursive: true });
    symlinkSync('/nonexistent-disk-c0p3/copilot', w.copilot);
    const before = inventory(w.root);

    const result = await runCopilot(w);

    expect(result.exitCode).toBe(1);
    expect(result.report.providers.find((root) => root.root === w.copilot)?.ok).toBe(false);
    expectOnly(before, inventory(w.root), {});
  });
});

describe.runIf(isRoot)('copilot: another user’s home, judged and deleted as that user (rule 20)', () => {
  const [user, other] = isRoot ? addUsers(2) : [];

  it('deletes the user’s old log as the user, refuses one of another uid, never reads through a link to another user’s folder', async () => {
    if (!user || !other) throw new Error('no users');
    const w = copilotWorld();
    const old = logFile(w.logs, endedPid(), daysAgo(9));
    const foreign = logFile(w.logs, endedPid(), daysAgo(9));
    giveTo(w.home, user);
    giveTo(path.dirname(w.repo), user);
    giveTo(foreign, other);
    // The other user's Copilot home, and a profile link in the user's home that leads into it.
    const theirs = path.join(w.root, 'theirs', '.copilot');
    const theirLog = logFile(path.join(theirs, 'logs'), endedPid(), daysAgo(9));
    giveTo(path.join(w.root, 'theirs'), other);
    const profile = path.join(w.home, '.copilot-theirs');
    symlinkSync(theirs, profile);
    giveTo(profile, user);
    // Another user's Copilot naming its home: not the user's.
    const stranger = await copilotProcess({ env: { COPILOT_HOME: theirs }, user: other });
    for (const file of [old, foreign, theirLog]) lutimesSync(file, daysAgo(9), daysAgo(9));
    const before = inventory(w.root);

    const asUser = await runCopilot(w);
    const viaProfile = await runCopilot(w, { env: { HOME: w.home, COPILOT_HOME: profile } });

    expect(verdictOf(asUser, old)).toBe('deleted log-retention');
    expect(verdictOf(asUser, foreign)).toBe('refused foreign-owner');
    expect(verdictOf(asUser, theirLog)).toBe('absent');
    expect(viaProfile.report.providers.find((root) => root.root === profile)).toMatchObject({
      ok: false,
      error: expect.stringContaining('not followed'),
    });
    expect(verdictOf(viaProfile, theirLog)).toBe('absent');
    expectOnly(before, inventory(w.root), { removed: [rel(w.root, old)], changedDirs: [rel(w.root, w.logs)] });
    await ended(stranger);
  });
});
