import { describe, expect, it } from 'vitest';
import type { HomeEvidence } from '../../../src/providers/watchfire/homes.js';
import {
  judgeHome,
  judgeQuarantine,
  judgeUnreadableSource,
  type WatchfireWorld,
} from '../../../src/providers/watchfire/judge.js';
import type { SessionLog } from '../../../src/providers/watchfire/session-logs.js';

const NOW = Date.parse('2026-11-30T06:00:00Z');
const HOUR = 3_600_000;
const ALPHA = { projectId: '11111111-1111-4111-8111-111111111111', name: 'Alpha App' };
const BETA = { projectId: '22222222-2222-4222-8222-222222222222', name: 'Beta' };
const LIVE = { live: true, why: 'daemon.lock is held (FLOCK lock of pid 42)' };
const DEAD = { live: false, why: "nobody holds daemon.lock and daemon.yaml's pid 4242 is dead" };

function home(name: string, overrides: Partial<HomeEvidence> = {}): HomeEvidence {
  return {
    path: `/h/.watchfire/codex-home/${name}`,
    name,
    backend: 'codex-home',
    type: 'directory',
    newestWriteMs: NOW - 48 * HOUR,
    ownEntry: 'sessions/2026/11/28/rollout-1.jsonl',
    ...overrides,
  };
}

function world(overrides: Partial<WatchfireWorld> = {}): WatchfireWorld {
  return { projects: [ALPHA, BETA], agents: null, daemon: DEAD, sessionLogs: new Map(), ...overrides };
}

function log(projectId: string, endedAtMs: number, status = 'completed'): SessionLog {
  return { file: `/h/.watchfire/logs/${projectId}/chat-0-x.log`, projectId, endedAtMs, status };
}

describe('judgeHome', () => {
  it('deletes a home whose slug is in no entry of projects.yaml', () => {
    const verdict = judgeHome(home('gone-project:chat'), world(), NOW);
    expect(verdict).toMatchObject({ decision: 'delete', reason: 'project-deleted' });
    expect(verdict.detail).toContain('gone-project');
  });

  it('keeps a home of a project in agents.yaml while the daemon is live, whatever else holds', () => {
    const agents = [{ projectId: ALPHA.projectId, projectName: ALPHA.name, mode: 'chat' }];
    const exported = new Map([[ALPHA.projectId, [log(ALPHA.projectId, NOW)]]]);
    const verdict = judgeHome(
      home('alpha-app:wildfire-execute'),
      world({ agents, daemon: LIVE, sessionLogs: exported }),
      NOW,
    );
    expect(verdict).toMatchObject({ decision: 'kept', reason: 'session-running' });
  });

  it('keeps by the agent project name too, when the id is not in projects.yaml', () => {
    const agents = [{ projectId: 'renamed-elsewhere', projectName: 'Alpha App', mode: 'task' }];
    expect(
      judgeHome(home('alpha-app:task:#0003-fix'), world({ projects: [], agents, daemon: LIVE }), NOW).decision,
    ).toBe('kept');
  });

  it('does not keep a running project of another slug', () => {
    const agents = [{ projectId: BETA.projectId, projectName: BETA.name, mode: 'chat' }];
    const verdict = judgeHome(home('alpha-app:chat'), world({ agents, daemon: LIVE }), NOW);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'transcript-not-exported' });
  });

  it('deletes a registered home when a session log of the project ended at or after its newest write', () => {
    const newest = NOW - 10 * HOUR;
    const logs = new Map([[ALPHA.projectId, [log(ALPHA.projectId, newest)]]]);
    const verdict = judgeHome(home('alpha-app:chat', { newestWriteMs: newest }), world({ sessionLogs: logs }), NOW);
    expect(verdict).toMatchObject({ decision: 'delete', reason: 'transcript-exported' });
    expect(verdict.detail).toContain('chat-0-x.log');
  });

  it('keeps a registered home unfinished when the last log ended before its newest write', () => {
    const newest = NOW - 10 * HOUR;
    const logs = new Map([[ALPHA.projectId, [log(ALPHA.projectId, newest - 1)]]]);
    const verdict = judgeHome(home('alpha-app:chat', { newestWriteMs: newest }), world({ sessionLogs: logs }), NOW);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'transcript-not-exported' });
    expect(verdict.detail).toContain('rollout-1.jsonl');
    expect(verdict.detail).toContain('10 h ago');
  });

  it("does not take another slug's log as proof", () => {
    const logs = new Map([[BETA.projectId, [log(BETA.projectId, NOW)]]]);
    expect(judgeHome(home('alpha-app:chat'), world({ sessionLogs: logs }), NOW).decision).toBe('unfinished');
  });

  it('refuses with clock-skew when the only log that would prove the export ends beyond the clock', () => {
    const newest = NOW - 2 * HOUR;
    const logs = new Map([[ALPHA.projectId, [log(ALPHA.projectId, Date.parse('2099-01-01T00:00:00Z'))]]]);
    const verdict = judgeHome(home('alpha-app:chat', { newestWriteMs: newest }), world({ sessionLogs: logs }), NOW);
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'clock-skew' });
  });

  it('believes a log up to five minutes ahead of the clock, and not one a millisecond more', () => {
    const newest = NOW - 2 * HOUR;
    const at = (endedAtMs: number) =>
      judgeHome(
        home('alpha-app:chat', { newestWriteMs: newest }),
        world({ sessionLogs: new Map([[ALPHA.projectId, [log(ALPHA.projectId, endedAtMs)]]]) }),
        NOW,
      ).reason;
    expect(at(NOW + 5 * 60_000)).toBe('transcript-exported');
    expect(at(NOW + 5 * 60_000 + 1)).toBe('clock-skew');
  });

  it('takes a credible log as proof even beside one from the future', () => {
    const newest = NOW - 2 * HOUR;
    const logs = new Map([
      [ALPHA.projectId, [log(ALPHA.projectId, NOW + 400 * 24 * HOUR), log(ALPHA.projectId, NOW - HOUR)]],
    ]);
    const verdict = judgeHome(home('alpha-app:chat', { newestWriteMs: newest }), world({ sessionLogs: logs }), NOW);
    expect(verdict).toMatchObject({ decision: 'delete', reason: 'transcript-exported' });
  });

  it('deletes a home that holds only what a start installs', () => {
    const verdict = judgeHome(home('alpha-app:chat', { ownEntry: null }), world(), NOW);
    expect(verdict).toMatchObject({ decision: 'delete', reason: 'failed-start' });
  });

  it('calls a home interrupted when the daemon died with its project in agents.yaml', () => {
    const agents = [{ projectId: ALPHA.projectId, projectName: ALPHA.name, mode: 'chat' }];
    const verdict = judgeHome(home('alpha-app:chat'), world({ agents, daemon: DEAD }), NOW);
    expect(verdict).toMatchObject({ decision: 'unfinished', reason: 'session-interrupted' });
    expect(verdict.detail).toContain('4242');
  });

  it('still deletes an interrupted home whose transcript was exported afterwards', () => {
    const agents = [{ projectId: ALPHA.projectId, projectName: ALPHA.name, mode: 'chat' }];
    const logs = new Map([[ALPHA.projectId, [log(ALPHA.projectId, NOW - HOUR)]]]);
    expect(judgeHome(home('alpha-app:chat'), world({ agents, sessionLogs: logs }), NOW).reason).toBe(
      'transcript-exported',
    );
  });

  it('with a dead daemon and no agents.yaml, an unexported home is not called interrupted', () => {
    expect(judgeHome(home('alpha-app:chat'), world({ agents: null }), NOW).reason).toBe('transcript-not-exported');
  });

  describe('two projects sharing a 30-byte slug', () => {
    const team = { projectId: 'aaaa', name: 'Acme Platform Services Backend Team' };
    const tools = { projectId: 'bbbb', name: 'Acme Platform Services Backend Tools' };
    const name = 'acme-platform-services-backend:chat';

    it('keeps the homes while either one runs', () => {
      const agents = [{ projectId: tools.projectId, projectName: tools.name, mode: 'chat' }];
      expect(judgeHome(home(name), world({ projects: [team, tools], agents, daemon: LIVE }), NOW).decision).toBe(
        'kept',
      );
    });

    it('does not call a home deleted while one of them is still registered', () => {
      expect(judgeHome(home(name), world({ projects: [tools] }), NOW).reason).toBe('transcript-not-exported');
    });

    it('accepts a log of either registered project as proof', () => {
      const logs = new Map([[team.projectId, [log(team.projectId, NOW)]]]);
      expect(judgeHome(home(name), world({ projects: [team, tools], sessionLogs: logs }), NOW).reason).toBe(
        'transcript-exported',
      );
    });
  });

  it('matches the empty slug of an all-symbol project name', () => {
    const symbols = { projectId: 'cccc', name: '***' };
    expect(judgeHome(home(':chat'), world({ projects: [symbols] }), NOW).reason).toBe('transcript-not-exported');
    expect(judgeHome(home(':chat'), world(), NOW).reason).toBe('project-deleted');
  });

  it('refuses a home that is a symlink, whatever its project', () => {
    const verdict = judgeHome(home('gone:chat', { type: 'symlink' }), world(), NOW);
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'symlink' });
  });

  it('refuses a folder whose name is no session name', () => {
    expect(judgeHome(home('scratch'), world(), NOW)).toMatchObject({
      decision: 'refused',
      reason: 'unrecognized-name',
    });
    expect(judgeHome(home('Capital:chat'), world(), NOW)).toMatchObject({
      decision: 'refused',
      reason: 'unrecognized-name',
    });
  });

  it('refuses a registered home whose newest write could not be measured', () => {
    const verdict = judgeHome(home('alpha-app:chat', { newestWriteMs: null, unreadable: 'EACCES' }), world(), NOW);
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'home-unreadable' });
    expect(verdict.detail).toContain('EACCES');
  });
});

describe('judgeUnreadableSource and judgeQuarantine', () => {
  it('refuses every home of an unreadable registry with the reason', () => {
    const verdict = judgeUnreadableSource(
      { path: '/h/.watchfire/codex-home/a:chat' },
      '/h/.watchfire/projects.yaml does not exist',
    );
    expect(verdict).toMatchObject({ decision: 'refused', reason: 'source-unreadable' });
    expect(verdict.detail).toContain('projects.yaml');
  });

  it('finishes a quarantine', () => {
    expect(judgeQuarantine('/q')).toMatchObject({ decision: 'delete', reason: 'quarantine-leftover' });
  });
});
