import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { runCli } from '../../helpers/cli.js';
import { daysAgo } from '../../helpers/fs-fixtures.js';
import { itemAt } from '../../helpers/pass.js';
import {
  ageAll,
  configFor,
  expectOnlyRemoved,
  expectUnchanged,
  machine,
  makeHome,
  passOver,
  project,
  snapshot,
  writeAgents,
  writeProjects,
  type Machine,
} from './fixture.js';

/** Homes of every kind the rule would otherwise delete. */
function deadHomes(m: Machine): string[] {
  return [
    makeHome(m, 'codex', { projectName: 'Gone', mode: 'chat' }),
    makeHome(m, 'gemini', { projectName: 'Gone', mode: 'agent' }, 'prompt-only'),
  ];
}

const BROKEN: Array<[string, (m: Machine) => void, RegExp]> = [
  ['missing', () => undefined, /projects\.yaml does not exist/],
  [
    'not YAML',
    (m) => writeFileSync(path.join(m.root, 'projects.yaml'), 'version: 1\nprojects: [\n  - {project_id: a\n'),
    /projects\.yaml: not valid YAML/,
  ],
  [
    'empty (caught mid-write)',
    (m) => writeFileSync(path.join(m.root, 'projects.yaml'), ''),
    /projects\.yaml: expected a YAML mapping/,
  ],
  [
    'of an unknown version',
    (m) => writeFileSync(path.join(m.root, 'projects.yaml'), 'version: 2\nprojects: []\n'),
    /version: expected 1/,
  ],
  [
    'without project ids',
    (m) => writeFileSync(path.join(m.root, 'projects.yaml'), 'version: 1\nprojects:\n  - name: x\n'),
    /projects\[0\]\.project_id/,
  ],
];

describe('watchfire: an unreadable projects.yaml fails closed', () => {
  for (const [what, breakIt, message] of BROKEN) {
    it(`refuses every home when projects.yaml is ${what}, and deletes nothing`, async () => {
      const m = machine();
      breakIt(m);
      const homes = deadHomes(m);
      ageAll(m, daysAgo(3));
      const before = snapshot(m);

      const { report, exitCode } = await passOver(m);

      expect(exitCode).toBe(1);
      expect(report.providers).toHaveLength(1);
      expect(report.providers[0]).toMatchObject({ provider: 'watchfire', root: m.root, ok: false });
      expect(report.providers[0]?.error).toMatch(message);
      for (const home of homes) {
        const item = itemAt(report, home);
        expect(item).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
        expect(item.detail).toMatch(message);
      }
      expectUnchanged(before, snapshot(m));
    });
  }

  it('fails closed on a corrupt agents.yaml too', async () => {
    const m = machine();
    writeProjects(m, []);
    writeFileSync(path.join(m.root, 'agents.yaml'), 'version: 1\nagents: {oops\n');
    const homes = deadHomes(m);
    ageAll(m, daysAgo(3));
    const before = snapshot(m);
    const { report, exitCode } = await passOver(m);
    expect(exitCode).toBe(1);
    expect(report.providers[0]?.error).toMatch(/agents\.yaml: not valid YAML/);
    for (const home of homes)
      expect(itemAt(report, home)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expectUnchanged(before, snapshot(m));
  });

  it('still finishes a quarantine while projects.yaml is missing', async () => {
    const m = machine();
    const home = makeHome(m, 'codex', { projectName: 'Gone', mode: 'chat' });
    const quarantine = path.join(m.root, 'codex-home', '.gone:agent.cleanup-2b0f3c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e');
    makeHome(m, 'codex', path.basename(quarantine));
    ageAll(m, daysAgo(3));
    const before = snapshot(m);

    const { report, exitCode } = await passOver(m);

    expect(exitCode).toBe(1);
    expect(itemAt(report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(itemAt(report, home)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expectOnlyRemoved(m, before, snapshot(m), [quarantine]);
  });

  it('exits 1 from the command line, with the reason in the report and nothing deleted', async () => {
    const m = machine();
    writeFileSync(path.join(m.root, 'projects.yaml'), ':\n  - [broken');
    writeAgents(m, [{ project: project('X'), mode: 'chat' }]);
    const homes = deadHomes(m);
    ageAll(m, daysAgo(3));
    const before = snapshot(m);
    const configFile = path.join(m.runDir, 'agent-janitor.yaml');
    writeFileSync(configFile, stringify(configFor(m)));

    const result = await runCli(
      ['run', '--config', configFile, '--only', 'watchfire', '--json', '--log-level', 'silent'],
      { env: { HOME: m.home } },
    );

    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.providers).toEqual([expect.objectContaining({ provider: 'watchfire', root: m.root, ok: false })]);
    for (const home of homes)
      expect(itemAt(report, home)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(report.totals.deleted).toBe(0);
    expectUnchanged(before, snapshot(m));
  });

  it('exits 0 once projects.yaml is readable again', async () => {
    const m = machine();
    const homes = deadHomes(m);
    ageAll(m, daysAgo(3));
    const configFile = path.join(m.runDir, 'agent-janitor.yaml');
    writeFileSync(configFile, stringify(configFor(m)));
    const args = ['run', '--config', configFile, '--only', 'watchfire', '--json', '--log-level', 'silent'];
    expect((await runCli(args, { env: { HOME: m.home } })).code).toBe(1);

    writeProjects(m, [project('Other')]);
    ageAll(m, daysAgo(3));
    const before = snapshot(m);
    const result = await runCli(args, { env: { HOME: m.home } });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    for (const home of homes) expect(itemAt(report, home).verdict).toBe('deleted');
    expectOnlyRemoved(m, before, snapshot(m), homes);
  });
});
