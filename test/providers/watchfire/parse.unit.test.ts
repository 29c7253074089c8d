import { describe, expect, it } from 'vitest';
import { parseLogHeader } from '../../../src/providers/watchfire/session-logs.js';
import { parseAgents, parseDaemonPid, parseProjects } from '../../../src/providers/watchfire/state.js';

const FILE = '/h/.watchfire/projects.yaml';

describe('parseProjects', () => {
  it('reads the registry as Watchfire writes it', () => {
    const text = [
      'version: 1',
      'projects:',
      '    - project_id: 0b7e5d1c-94a2-4f1e-9a57-3f0c2b1d8e61',
      '      name: My App',
      '      path: /home/ana/src/my-app',
      '      position: 0',
      '    - project_id: 5d2c7a90-1b3e-4c8f-a6d4-9e8f7a6b5c4d',
      '      name: "1e3"',
      '      path: /home/ana/src/x',
      '      position: 1',
      '',
    ].join('\n');
    expect(parseProjects(text, FILE)).toEqual([
      { projectId: '0b7e5d1c-94a2-4f1e-9a57-3f0c2b1d8e61', name: 'My App' },
      { projectId: '5d2c7a90-1b3e-4c8f-a6d4-9e8f7a6b5c4d', name: '1e3' },
    ]);
  });

  it('keeps names that other YAML schemas would turn into numbers or booleans', () => {
    const text =
      'version: 1\nprojects:\n  - project_id: a\n    name: 1e3\n    path: /p/a\n  - project_id: b\n    name: no\n    path: /p/b\n';
    expect(parseProjects(text, FILE).map((project) => project.name)).toEqual(['1e3', 'no']);
  });

  it('accepts an empty list', () => {
    expect(parseProjects('version: 1\nprojects: []\n', FILE)).toEqual([]);
  });

  it('fails naming the file and the key', () => {
    expect(() => parseProjects('version: 2\nprojects: []\n', FILE)).toThrow(/projects\.yaml: version: expected 1/);
    expect(() => parseProjects('version: 1\n', FILE)).toThrow(/projects\.yaml: projects: expected a list/);
    expect(() => parseProjects('version: 1\nprojects:\n  - name: x\n', FILE)).toThrow(/projects\[0\]\.project_id/);
    expect(() => parseProjects('version: 1\nprojects: [\n', FILE)).toThrow(/projects\.yaml: not valid YAML/);
    expect(() => parseProjects('', FILE)).toThrow(/expected a YAML mapping/);
    expect(() => parseProjects('- a\n', FILE)).toThrow(/expected a YAML mapping/);
  });

  it('fails closed on a registry cut short while Watchfire rewrote it in place', () => {
    const whole =
      'version: 1\nprojects:\n  - project_id: a\n    name: keep\n    path: /p/a\n    position: 0\n  - project_id: b\n    name: other\n    path: /p/b\n    position: 1\n';
    expect(parseProjects(whole, FILE).map((p) => p.name)).toEqual(['keep', 'other']);
    // Cut inside the last line: no final newline.
    expect(() => parseProjects(whole.slice(0, -3), FILE)).toThrow(/does not end with a newline/);
    // Cut after a whole line inside the second entry: a key is missing.
    const cutInEntry = whole.slice(0, whole.indexOf('    path: /p/b'));
    expect(() => parseProjects(cutInEntry, FILE)).toThrow(/projects\[1\]\.path/);
    expect(() => parseProjects(whole.replace('position: 1', 'position: 1x'), FILE)).toThrow(/projects\[1\]\.position/);
  });
});

describe('parseAgents and parseDaemonPid', () => {
  it('reads the running agents', () => {
    const text = [
      'version: 1',
      'agents:',
      '    - project_id: p1',
      '      project_name: My App',
      '      project_path: /src/my-app',
      '      mode: task',
      '      task_number: 4',
      '      task_title: Fix it',
      '',
    ].join('\n');
    expect(parseAgents(text, '/h/agents.yaml')).toEqual([{ projectId: 'p1', projectName: 'My App', mode: 'task' }]);
    expect(parseAgents('version: 1\nagents: []\n', '/h/agents.yaml')).toEqual([]);
    expect(() => parseAgents('version: 1\nagents: {}\n', '/h/agents.yaml')).toThrow(/agents: expected a list/);
  });

  it('reads the daemon pid and refuses anything that is not one', () => {
    expect(
      parseDaemonPid(
        'version: 1\nhost: localhost\nport: 50051\npid: 4242\nstarted_at: 2026-11-30T06:00:00Z\n',
        '/h/daemon.yaml',
      ),
    ).toBe(4242);
    expect(() => parseDaemonPid('version: 1\npid: -1\n', '/h/daemon.yaml')).toThrow(/pid: expected a process id/);
    expect(() => parseDaemonPid('version: 1\n', '/h/daemon.yaml')).toThrow(/pid/);
  });
});

describe('parseLogHeader', () => {
  const header = (lines: string[]) => ['---', ...lines, '---', 'scrollback…', ''].join('\n');

  it('reads ended_at, status and project_id', () => {
    const text = header([
      'project_id: p1',
      'task_number: 0',
      'session_number: 2',
      'agent: codex',
      'mode: chat',
      'started_at: 2026-11-30T05:00:00Z',
      'ended_at: 2026-11-30T06:00:00Z',
      'status: interrupted',
    ]);
    expect(parseLogHeader(text)).toEqual({
      projectId: 'p1',
      endedAtMs: Date.parse('2026-11-30T06:00:00Z'),
      status: 'interrupted',
    });
  });

  it('answers null for anything but a whole header with a valid ended_at', () => {
    expect(parseLogHeader('no header\n')).toBeNull();
    expect(parseLogHeader('---\nproject_id: p1\nended_at: 2026-11-30T06:00:00Z\n')).toBeNull();
    expect(parseLogHeader(header(['project_id: p1', 'ended_at: yesterday']))).toBeNull();
    expect(parseLogHeader(header(['project_id: p1']))).toBeNull();
    expect(parseLogHeader(header(['project_id: p1', 'garbage line', 'ended_at: 2026-11-30T06:00:00Z']))).toBeNull();
  });
});
