import { describe, expect, it } from 'vitest';
import { parseLogHeader } from '../../../src/providers/watchfire/session-logs.js';
import { parseAgents, parseDaemonPid, parseProjects } from '../../../src/providers/watchfire/state.js';

const PROJECTS = '/h/.watchfire/projects.yaml';
const AGENTS = '/h/.watchfire/agents.yaml';
const DAEMON = '/h/.watchfire/daemon.yaml';
const ABSENT = 'Invalid input: expected nonoptional, received undefined';

/** The one line a refused file gets (the provider's error in the report). */
function lineOf(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('accepted');
}

const project = (...fields: string[]) => `version: 1\nprojects:\n  - ${fields.join('\n    ')}\n`;
const agent = (...fields: string[]) => `version: 1\nagents:\n  - ${fields.join('\n    ')}\n`;

describe("Watchfire's state files: the line each refused file gets", () => {
  it('projects.yaml', () => {
    const cases: Array<[string, string]> = [
      ['', 'expected a YAML mapping with version and projects'],
      ['- a\n', 'expected a YAML mapping with version and projects'],
      ['version: 2\nprojects: []\n', 'version: expected 1, found "2" (unknown schema)'],
      ['projects: []\n', 'version: expected 1, found null (unknown schema)'],
      ['version: 1\n', 'projects: expected a list'],
      ['version: 1\nprojects: x\n', 'projects: expected a list'],
      [
        'version: 1\nprojects:\n  - project_id: p',
        'does not end with a newline, so it may have been cut short while written',
      ],
      ['version: 1\nprojects:\n  - x\n', 'projects[0]: expected a mapping'],
      [project('name: a', 'path: /p'), 'projects[0].project_id: expected a non-empty string'],
      [project('project_id: ""', 'name: a', 'path: /p'), 'projects[0].project_id: expected a non-empty string'],
      [project('project_id: [p]', 'name: a', 'path: /p'), 'projects[0].project_id: expected a non-empty string'],
      [project('project_id: p', 'path: /p'), 'projects[0].name: expected a string'],
      [project('project_id: p', 'name: {a: 1}', 'path: /p'), 'projects[0].name: expected a string'],
      [project('project_id: p', 'name: a'), 'projects[0].path: expected a non-empty string'],
      [
        project('project_id: p', 'name: a', 'path: /p', 'position: 1x'),
        'projects[0].position: expected a whole number',
      ],
      [
        project('project_id: p', 'name: a', 'path: /p', 'position: [1]'),
        'projects[0].position: expected a whole number',
      ],
    ];
    for (const [text, line] of cases) expect(lineOf(() => parseProjects(text, PROJECTS))).toBe(`${PROJECTS}: ${line}`);
    expect(lineOf(() => parseProjects('version: 1\nprojects: [\n', PROJECTS))).toMatch(
      /^\/h\/\.watchfire\/projects\.yaml: not valid YAML: \S/,
    );
    expect(lineOf(() => parseProjects('version: 1\nversion: 1\nprojects: []\n', PROJECTS))).toMatch(
      /^\/h\/\.watchfire\/projects\.yaml: not valid YAML: Map keys must be unique/,
    );
  });

  it('projects.yaml: the first problem in the order of the keys, then of the entries', () => {
    // The version before the list, whatever the file's order; each entry's keys in their order.
    expect(lineOf(() => parseProjects('projects: x\nversion: 2\n', PROJECTS))).toBe(
      `${PROJECTS}: version: expected 1, found "2" (unknown schema)`,
    );
    const two = 'version: 1\nprojects:\n  - path: /p\n  - project_id: p\n    name: a\n';
    expect(lineOf(() => parseProjects(two, PROJECTS))).toBe(
      `${PROJECTS}: projects[0].project_id: expected a non-empty string`,
    );
  });

  it('projects.yaml: what it takes', () => {
    const entry = project('project_id: p', 'name: ""', 'path: /p', 'position: -3', 'extra: kept');
    expect(parseProjects(entry, PROJECTS)).toEqual([{ projectId: 'p', name: '' }]);
    expect(parseProjects('version: 1\nprojects: []', PROJECTS)).toEqual([]);
  });

  it('agents.yaml', () => {
    const cases: Array<[string, string]> = [
      ['', 'expected a YAML mapping with version and agents'],
      ['version: 3\nagents: []\n', 'version: expected 1, found "3" (unknown schema)'],
      ['version: 1\n', `agents: ${ABSENT}`],
      ['version: 1\nagents: {}\n', 'agents: expected a list'],
      ['version: 1\nagents: running\n', 'agents: expected a list'],
      ['version: 1\nagents:\n  - x\n', 'agents[0]: expected a mapping'],
      [agent('project_name: a', 'mode: task'), 'agents[0].project_id: expected a non-empty string'],
      [agent('project_id: p', 'mode: task'), 'agents[0].project_name: expected a string'],
      [agent('project_id: p', 'project_name: a'), `agents[0].mode: ${ABSENT}`],
    ];
    for (const [text, line] of cases) expect(lineOf(() => parseAgents(text, AGENTS))).toBe(`${AGENTS}: ${line}`);
  });

  it('agents.yaml: what it takes', () => {
    expect(parseAgents('version: 1\nagents:\n', AGENTS)).toEqual([]);
    expect(parseAgents('version: 1\nagents: ""\n', AGENTS)).toEqual([]);
    expect(parseAgents(agent('project_id: p', 'project_name: a', 'mode: [x]'), AGENTS)).toEqual([
      { projectId: 'p', projectName: 'a', mode: '' },
    ]);
  });

  it('daemon.yaml', () => {
    const cases: Array<[string, string]> = [
      ['- 1\n', 'expected a YAML mapping with version and daemon'],
      ['version: 1\n', 'pid: expected a process id, found null'],
      ['pid: -1\n', 'pid: expected a process id, found "-1"'],
      ['pid: 01\n', 'pid: expected a process id, found "01"'],
      ['pid: 12345678901\n', 'pid: expected a process id, found "12345678901"'],
      ['pid: [1]\n', 'pid: expected a process id, found ["1"]'],
    ];
    for (const [text, line] of cases) expect(lineOf(() => parseDaemonPid(text, DAEMON))).toBe(`${DAEMON}: ${line}`);
    expect(parseDaemonPid('pid: 4242\nversion: 7\n', DAEMON)).toBe(4242);
  });
});

describe('a session log header: the fields read, or none', () => {
  const header = (...lines: string[]) => ['---', ...lines, '---', 'scrollback', ''].join('\n');

  it('takes a valid ended_at, the project id and the status (empty when absent)', () => {
    expect(parseLogHeader(header('ended_at: "2026-11-30T06:00:00.5+02:00"'))).toEqual({
      projectId: null,
      endedAtMs: Date.parse('2026-11-30T04:00:00.5Z'),
      status: '',
    });
    expect(parseLogHeader(header("project_id: ''", 'ended_at: 2026-11-30T06:00:00Z', 'status: done'))).toEqual({
      projectId: null,
      endedAtMs: Date.parse('2026-11-30T06:00:00Z'),
      status: 'done',
    });
  });

  it('answers null for an ended_at that is not an RFC 3339 time or names no real one', () => {
    for (const ended of [
      '2026-11-30 06:00:00Z',
      '2026-11-30T06:00:00',
      '2026-13-01T00:00:00Z',
      '2026-11-30T25:00:00Z',
      '',
    ]) {
      expect(parseLogHeader(header('project_id: p', `ended_at: ${ended}`))).toBeNull();
    }
  });
});
