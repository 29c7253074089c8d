import { describe, expect, it } from 'vitest';
import { judgeKeep, judgeLog, judgeSession, type LogFacts } from '../../../src/providers/copilot/judge.js';

const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const DAY = 86_400_000;

const log = (facts: Partial<LogFacts>): LogFacts => ({
  path: '/home/ana/.copilot/logs/process-1-42.log',
  type: 'file',
  mtimeMs: NOW - DAY,
  pid: 42,
  writer: { state: 'dead' },
  counted: 10,
  newer: 0,
  ...facts,
});

describe('the copilot judge of a log (Copilot CLI 1.0.60 `OOo`)', () => {
  it('keeps a log of exactly seven days, as Copilot does, and lets one a millisecond older go', () => {
    expect(judgeLog(log({ mtimeMs: NOW - 7 * DAY }), NOW).decision).toBe('kept');
    expect(judgeLog(log({ mtimeMs: NOW - 7 * DAY - 1 }), NOW)).toMatchObject({
      decision: 'delete',
      reason: 'log-retention',
    });
  });

  it('applies the fifty newest only past fifty logs, and only to a log fifty others are strictly newer than', () => {
    expect(judgeLog(log({ counted: 50, newer: 49 }), NOW).decision).toBe('kept');
    expect(judgeLog(log({ counted: 51, newer: 49 }), NOW).decision).toBe('kept');
    expect(judgeLog(log({ counted: 51, newer: 50 }), NOW)).toMatchObject({
      decision: 'delete',
      reason: 'log-retention',
    });
  });

  it('never lets a log go whose writer is alive or cannot be told, nor a link', () => {
    const old = NOW - 30 * DAY;
    expect(
      judgeLog(log({ mtimeMs: old, writer: { state: 'alive', process: 'process 42 (copilot)' } }), NOW),
    ).toMatchObject({ decision: 'kept', reason: 'log-writer-live' });
    expect(judgeLog(log({ mtimeMs: old, writer: { state: 'unknown', why: 'blind' } }), NOW)).toMatchObject({
      decision: 'refused',
      reason: 'liveness-unknown',
    });
    expect(judgeLog(log({ mtimeMs: old, type: 'link' }), NOW)).toMatchObject({
      decision: 'refused',
      reason: 'symlink',
    });
    // A `process-*.log` without a pid in its name is counted by Copilot and judged by its rule.
    expect(judgeLog(log({ mtimeMs: old, pid: null, writer: null }), NOW).decision).toBe('delete');
  });
});

describe('the copilot judge of a session and of a pull request’s worktree', () => {
  it('reports a session, never deletes it', () => {
    const judged = judgeSession({
      id: 's1',
      folder: '/home/ana/.copilot/session-state/s1',
      workspace: { cwd: '/src/app', gitRoot: '/src/app', name: 'notes', userNamed: true, updatedAt: null },
      lockPids: [7],
      bytes: 2048,
      locks: [{ pid: 7, liveness: { state: 'unknown', why: 'blind' } }],
    });
    expect(judged).toMatchObject({ decision: 'kept', reason: 'copilot-session' });
    expect(judged.detail).toContain('in use by process 7 (whether it is alive cannot be told)');
  });

  it('keeps a worktree a live session works in before it refuses one an unreadable home may hold', () => {
    const inside = [{ id: 's1', holder: 'process 7 (copilot), which is alive', cwd: '/src/app.worktrees/fix' }];
    expect(judgeKeep(inside, ['x'])).toMatchObject({ decision: 'kept', reason: 'session-in-use' });
    expect(judgeKeep([], ['its sessions cannot be read'])).toMatchObject({
      decision: 'refused',
      reason: 'source-unreadable',
    });
    expect(judgeKeep([], [])).toBeNull();
  });

  it('refuses a worktree with liveness-unknown where a session lock may name a live process (rule 19)', () => {
    const maybe = {
      id: 's2',
      holder: 'process 9, which may be alive (blind)',
      cwd: '/src/app.worktrees/fix',
      livenessUnknown: 'processes cannot be seen (pid-namespace)',
    };
    expect(judgeKeep([maybe], [])).toMatchObject({ decision: 'refused', reason: 'liveness-unknown' });
    const alive = { id: 's1', holder: 'process 7 (copilot), which is alive', cwd: '/src/app.worktrees/fix' };
    expect(judgeKeep([maybe, alive], [])).toMatchObject({ decision: 'kept', reason: 'session-in-use' });
  });
});
