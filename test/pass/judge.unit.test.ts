import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/provider-api/candidate.js';
import type { Liveness } from '../../src/model/types.js';
import type { SafetyFacts } from '../../src/pass/inspect.js';
import { judge, type SafetyPolicy } from '../../src/pass/judge.js';

const NOW = Date.parse('2026-11-30T06:00:00Z');
const HOUR = 3_600_000;

const dead: Candidate = {
  provider: 'watchfire',
  kind: 'session-home',
  path: '/h/.watchfire/codex-home/p:chat',
  root: '/h/.watchfire',
  judgement: { decision: 'delete', reason: 'project-deleted', detail: 'no such project' },
};
const healthy: SafetyFacts = {
  exists: true,
  isRealDirectory: true,
  contained: true,
  symlinkInPath: false,
  sameFilesystemAsParent: true,
  mountInside: false,
  bytes: 10,
  newestWriteMs: NOW - 5 * HOUR,
  newestFileWriteMs: NOW - 5 * HOUR,
  processesInside: [],
};
const seen: Liveness = { visible: true, inspected: 10, uninspectable: 0 };
const deleting: SafetyPolicy = { minAgeMs: HOUR, processCheck: 'auto', mode: 'delete' };

describe('judge', () => {
  it('passes a proven-dead, healthy item to the executor, or to would-delete in report-only', () => {
    expect(judge(dead, healthy, seen, deleting, NOW)).toEqual({
      verdict: 'delete',
      reason: 'project-deleted',
      detail: 'no such project',
    });
    expect(judge(dead, healthy, seen, { ...deleting, mode: 'report-only' }, NOW).verdict).toBe('would-delete');
  });

  it('calls a write from the future too-recent, whatever minAge (a wrong clock proves no age)', () => {
    const future = { ...healthy, newestWriteMs: NOW + 400 * 24 * HOUR, newestFileWriteMs: NOW + 400 * 24 * HOUR };
    expect(judge(dead, future, seen, deleting, NOW)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(judge(dead, future, seen, { ...deleting, minAgeMs: 0 }, NOW).reason).toBe('too-recent');
    const quarantine: Candidate = {
      ...dead,
      kind: 'quarantine',
      judgement: { ...dead.judgement, reason: 'quarantine-leftover' },
    };
    expect(judge(quarantine, future, seen, { ...deleting, minAgeMs: 0 }, NOW).reason).toBe('too-recent');
  });

  it("adds an owner's own in-use detail (whose session a runaway shell outlived) after the holders it names", () => {
    const runaway: Candidate = {
      ...dead,
      judgement: { decision: 'refused', reason: 'in-use', detail: 'its Claude Code (CLAUDE_PID=7) is gone' },
    };
    const busy = { ...healthy, processesInside: [11] };
    expect(judge(runaway, busy, seen, deleting, NOW).detail).toMatch(
      /^process 11 has its working directory, .*; only stopping it frees its 10 B; its Claude Code \(CLAUDE_PID=7\) is gone$/,
    );
    expect(judge(dead, busy, seen, deleting, NOW).detail).toMatch(/frees its 10 B$/);
    // Held by nothing the safety engine sees: the owner's word stands alone.
    expect(judge(runaway, healthy, seen, deleting, NOW)).toEqual({
      verdict: 'refused',
      reason: 'in-use',
      detail: 'its Claude Code (CLAUDE_PID=7) is gone',
    });
  });

  it('puts signs of life before the owner: in-use, then too-recent, even for kept items', () => {
    const busy = { ...healthy, processesInside: [11, 12, 13, 14, 15, 16, 17] };
    const inUse = judge(dead, busy, seen, deleting, NOW);
    expect(inUse).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(inUse.detail).toContain('11, 12, 13, 14, 15 and 2 more');
    const young = { ...healthy, newestWriteMs: NOW - HOUR + 1 };
    expect(judge(dead, young, seen, deleting, NOW)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(judge(dead, { ...healthy, newestWriteMs: NOW - HOUR }, seen, deleting, NOW).verdict).toBe('delete');
    const kept: Candidate = { ...dead, judgement: { decision: 'kept', reason: 'session-running', detail: 'running' } };
    expect(judge(kept, young, seen, deleting, NOW).reason).toBe('too-recent');
    expect(judge(kept, healthy, seen, deleting, NOW)).toEqual({
      verdict: 'kept',
      reason: 'session-running',
      detail: 'running',
    });
  });

  it('ignores processes when processCheck is off', () => {
    const busy = { ...healthy, processesInside: [11] };
    expect(judge(dead, busy, seen, { ...deleting, processCheck: 'off' }, NOW).verdict).toBe('delete');
  });

  it('ages a quarantine by its files, not by the folders a killed delete emptied', () => {
    const quarantine: Candidate = { ...dead, kind: 'quarantine' };
    const halfDeleted = { ...healthy, newestWriteMs: NOW - 1000, newestFileWriteMs: NOW - 5 * HOUR };
    expect(judge(quarantine, halfDeleted, seen, deleting, NOW).verdict).toBe('delete');
    expect(judge(dead, halfDeleted, seen, deleting, NOW).reason).toBe('too-recent');
    const freshFile = { ...halfDeleted, newestFileWriteMs: NOW - 1000 };
    expect(judge(quarantine, freshFile, seen, deleting, NOW).reason).toBe('too-recent');
  });

  it('guards the delete itself: each unsafe path has its own reason', () => {
    const cases: Array<[Partial<SafetyFacts>, string]> = [
      [{ isRealDirectory: false }, 'symlink'],
      [{ symlinkInPath: true, contained: false }, 'symlink-in-path'],
      [{ contained: false }, 'outside-root'],
      [{ sameFilesystemAsParent: false }, 'mount-point'],
      [{ mountInside: true }, 'mount-inside'],
      [{ walkError: 'cannot read /x: EACCES' }, 'unreadable'],
    ];
    for (const [change, reason] of cases) {
      expect(judge(dead, { ...healthy, ...change }, seen, deleting, NOW)).toMatchObject({ verdict: 'refused', reason });
    }
  });

  it('refuses with liveness-unknown where processes are hidden, and under required when any is uninspectable', () => {
    const hidden: Liveness = { visible: false, inspected: 0, uninspectable: 0, why: 'a PID namespace of its own' };
    expect(judge(dead, healthy, hidden, deleting, NOW)).toMatchObject({
      verdict: 'refused',
      reason: 'liveness-unknown',
    });
    expect(judge(dead, healthy, hidden, { ...deleting, processCheck: 'off' }, NOW).verdict).toBe('delete');
    const partly: Liveness = { visible: true, inspected: 9, uninspectable: 1 };
    expect(judge(dead, healthy, partly, deleting, NOW).verdict).toBe('delete');
    expect(judge(dead, healthy, partly, { ...deleting, processCheck: 'required' }, NOW).reason).toBe(
      'liveness-unknown',
    );
  });

  it('passes an owner verdict through untouched for items without a folder', () => {
    const job: Candidate = {
      ...dead,
      kind: 'job',
      path: null,
      root: null,
      judgement: { decision: 'unfinished', reason: 'review-overdue', detail: 'review since 9d' },
    };
    expect(judge(job, null, seen, deleting, NOW)).toEqual({
      verdict: 'unfinished',
      reason: 'review-overdue',
      detail: 'review since 9d',
    });
  });

  describe("one of git's temporary files (a single-file removal)", () => {
    const garbage: Candidate = {
      provider: 'kilo',
      kind: 'git-garbage',
      path: '/h/.local/share/opencode/snapshot/p/r/objects/pack/tmp_pack_Ab12Cd',
      root: '/h/.local/share/opencode/snapshot',
      judgement: { decision: 'delete', reason: 'git-temporary', detail: 'left by a killed git' },
      removal: { type: 'file', repository: '/h/.local/share/opencode/snapshot/p/r' },
    };
    const file: SafetyFacts = { ...healthy, isRealDirectory: false, isRegularFile: true, bytes: 2 * 1024 * 1024 };

    it('goes as a regular file, and is refused as anything else, a folder included', () => {
      expect(judge(garbage, file, seen, deleting, NOW).verdict).toBe('delete');
      const link = { ...file, isRegularFile: false };
      expect(judge(garbage, link, seen, deleting, NOW)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
      const folder = { ...file, isRealDirectory: true, isRegularFile: false };
      expect(judge(garbage, folder, seen, deleting, NOW)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
      const asTree = { ...garbage, removal: { type: 'tree' as const } };
      expect(judge(asTree, file, seen, deleting, NOW)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    });

    it('is in use while a process holds it, or while git works in its repository, each named', () => {
      const holders = [{ pid: 4242, command: 'git pack-objects', user: 'root' }];
      const held = judge(garbage, { ...file, processesInside: [4242], holders }, seen, deleting, NOW);
      expect(held).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(held.detail).toBe(
        'process 4242 (git pack-objects, run by root) has it open or mapped; only stopping it frees its 2.0 MiB',
      );
      const gitInRepository = {
        repository: (garbage.removal?.type === 'file' && garbage.removal.repository) || '',
        pids: [77],
        holders: [{ pid: 77, command: 'git gc', user: 'root' }],
      };
      const working = judge(garbage, { ...file, gitInRepository }, seen, deleting, NOW);
      expect(working).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(working.detail).toContain(
        'process 77 (git gc, run by root) is git at work in the repository /h/.local/share/opencode/snapshot/p/r',
      );
      expect(
        judge(garbage, { ...file, gitInRepository }, seen, { ...deleting, processCheck: 'off' }, NOW).verdict,
      ).toBe('delete');
      expect(
        judge(garbage, { ...file, gitInRepository: { ...gitInRepository, pids: [] } }, seen, deleting, NOW).verdict,
      ).toBe('delete');
    });
  });
});
