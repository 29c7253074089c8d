import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { scanProcesses } from '../../src/safety/processes/processes.js';
import { loadConfig } from '../../src/config/load.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { watchfire } from '../../src/providers/watchfire/index.js';
import { sessionName } from '../../src/providers/watchfire/slug.js';
import { createTreeCache } from '../../src/safety/walk/tree-cache.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { spawnLiving } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import {
  daemonLock,
  project,
  writeAgents,
  writeDaemon,
  type Machine,
  type Project,
} from '../providers/watchfire/fixture.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { mixedHome, ownEnv } from './support/mixed-home.js';

/**
 * Issue 6, case 4 (text sources): Watchfire's projects.yaml, agents.yaml and daemon.yaml, Kilo's
 * agent-manager.json and Owl's config.yaml truncated, empty, binary and huge. What cannot be read
 * fails closed; nothing of a project that is still registered is ever deleted.
 */

/** projects.yaml as Watchfire's YAML encoder writes it: four-space list indent, plain names. */
function projectsYaml(projects: Array<Project & { path: string }>): string {
  const lines = ['version: 1', 'projects:'];
  for (const [index, p] of projects.entries()) {
    lines.push(
      `    - project_id: ${p.id}`,
      `      name: ${p.name}`,
      `      path: ${p.path}`,
      `      position: ${index}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface Registry {
  m: Machine;
  projects: Array<Project & { path: string }>;
  text: string;
  /** One session home per registered project, and one of a project deleted long ago. */
  homes: Map<string, string>;
  deleted: string;
}

function registry(): Registry {
  const dir = tempDir('aj-yaml-');
  const home = path.join(dir, 'home');
  const root = path.join(home, '.watchfire');
  const m: Machine = { dir, home, root, runDir: path.join(dir, 'run'), reportDir: path.join(dir, 'run', 'report') };
  mkdirSync(m.runDir, { recursive: true });
  const projects = ['Storefront', 'Billing API', 'Mobile App Rewrite'].map((name, index) => ({
    ...project(name),
    path: `/home/ana/src/p${index}`,
  }));
  const text = projectsYaml(projects);
  put(path.join(root, 'projects.yaml'), text);
  const homes = new Map<string, string>();
  for (const p of projects) {
    const folder = path.join(root, 'codex-home', sessionName({ projectName: p.name, mode: 'chat' }));
    put(path.join(folder, 'sessions', 'rollout.jsonl'), `{"project":"${p.name}"}\n`);
    homes.set(p.name, folder);
  }
  const deleted = path.join(root, 'codex-home', sessionName({ projectName: 'Retired Prototype', mode: 'chat' }));
  put(path.join(deleted, 'sessions', 'rollout.jsonl'), '{}\n');
  backdate(dir, daysAgo(3));
  return { m, projects, text, homes, deleted };
}

const snapshotOf = (r: Registry) => inventory(r.m.dir, { exclude: [r.m.runDir] });

/** Writes a state file and dates it a day back: left so long ago, the reader need not wait it out. */
function writeSettled(file: string, content: string | Buffer): void {
  writeFileSync(file, content);
  utimesSync(file, daysAgo(1), daysAgo(1));
}

const watchfirePass = (r: Registry, reportOnly = true) =>
  pass({
    dir: r.m.runDir,
    config: { homes: [r.m.home], minAge: '1h', reportDir: r.m.reportDir },
    only: ['watchfire'],
    reportOnly,
    env: { HOME: r.m.home },
  });

describe('projects.yaml that cannot be trusted', () => {
  it.each([
    ['empty', () => ''],
    ['random bytes', () => randomBytes(4096)],
    ['NUL bytes', () => Buffer.alloc(512)],
    ['a YAML list, not a mapping', () => '- a\n- b\n'],
    ['another version', (text: string) => text.replace('version: 1', 'version: 2')],
  ])('fails closed on a registry that is %s: every home refused, nothing deleted', async (_name, make) => {
    const r = registry();
    writeSettled(path.join(r.m.root, 'projects.yaml'), make(r.text));
    const before = snapshotOf(r);
    const { report, exitCode } = await watchfirePass(r, false);
    expect(exitCode).toBe(1);
    expect(report.providers[0]).toMatchObject({ provider: 'watchfire', ok: false });
    for (const home of [...r.homes.values(), r.deleted]) expect(itemAt(report, home).verdict).toBe('refused');
    expect(report.totals.deleted).toBe(0);
    expectOnlyTargetsTouched(before, snapshotOf(r), { targets: [] });
  });

  it('reads a huge registry (20,000 projects, 4 MB) and still keeps what is registered', async () => {
    const r = registry();
    const many = [...r.projects];
    for (let i = 0; i < 20_000; i += 1)
      many.push({ ...project(`Generated Project ${i} ${'x'.repeat(100)}`), path: `/srv/p/${i}` });
    writeFileSync(path.join(r.m.root, 'projects.yaml'), projectsYaml(many));
    const { report, exitCode } = await watchfirePass(r);
    expect(exitCode).toBe(0);
    for (const home of r.homes.values()) expect(itemAt(report, home).verdict).not.toBe('would-delete');
    expect(itemAt(report, r.deleted).verdict).toBe('would-delete');
  });

  /**
   * Every byte the registry could be cut at (a crash of Watchfire's non-atomic os.WriteFile, or
   * power loss). A home whose project's entry is still whole in the cut file is never judged
   * dead. A cut inside a line fails closed (no final newline), and so does one inside an entry
   * before its path. Still open: a cut between whole entries, or right before an entry's
   * optional position line, reads as a smaller registry and cannot be told from a project
   * removed on purpose.
   */
  it('never judges dead the home of a project whose entry is whole, whatever byte the registry is cut at', async () => {
    const r = registry();
    const file = path.join(r.m.root, 'projects.yaml');
    const config = await loadConfig({
      providers: PROVIDERS,
      env: { HOME: r.m.home },
      overrides: { homes: [r.m.home], minAge: '1h', reportDir: r.m.reportDir },
    });
    const entryEnd = (name: string) =>
      r.text.indexOf('\n', r.text.indexOf('position:', r.text.indexOf(`name: ${name}\n`))) + 1;
    const wrong: string[] = [];
    const gap: number[] = [];
    for (let cut = 0; cut <= r.text.length; cut += 1) {
      writeFileSync(file, r.text.slice(0, cut));
      // Left cut long ago (the reader waits out a fresh write, which may still be under way).
      utimesSync(file, daysAgo(1), daysAgo(1));
      const gathered = await watchfire.gather({
        config,
        homes: [r.m.home],
        now: new Date(),
        log: pino({ level: 'silent' }),
        env: { HOME: r.m.home },
        measure: createTreeCache(),
        registry: PROVIDERS,
        processes: scanProcesses(),
        holdersOf: () => [],
      });
      for (const [name, home] of r.homes) {
        const judged = gathered.candidates.find((candidate) => candidate.path === home);
        if (judged?.judgement.decision !== 'delete') continue;
        if (cut >= entryEnd(name))
          wrong.push(
            `cut at byte ${cut} (${JSON.stringify(r.text.slice(Math.max(0, cut - 24), cut))}): the home of ${name} is judged dead`,
          );
        else gap.push(cut);
      }
    }
    expect(wrong).toEqual([]);
    const boundaries = r.projects.map((p) => entryEnd(p.name));
    const insideEntries = gap.filter((cut) => !boundaries.includes(cut) && cut !== r.text.indexOf('    - '));
    expect(
      insideEntries.length,
      'the known gap (a cut inside an entry reads as a smaller registry) is no longer seen: make this test strict',
    ).toBeGreaterThan(0);
  }, 60_000);
});

describe('agents.yaml and daemon.yaml that cannot be trusted, while the daemon lives', () => {
  it.each([
    ['empty', ''],
    ['random bytes', randomBytes(2048)],
    ['cut inside an entry', 'version: 1\nagents:\n    - project_id: 0b7e5d1c-94a2-4f1e-9a57-0000000'],
  ])('agents.yaml %s: fails closed, nothing deleted', async (_name, content) => {
    const r = registry();
    writeAgents(r.m, [{ project: r.projects[0] as Project, mode: 'chat' }]);
    writeSettled(path.join(r.m.root, 'agents.yaml'), content);
    daemonLock(r.m);
    writeDaemon(r.m, spawnLiving('sleep', ['600']).pid as number);
    backdate(r.m.root, daysAgo(1));
    const before = snapshotOf(r);
    const { report } = await watchfirePass(r, false);
    expect(report.totals.deleted).toBe(0);
    expect(report.providers[0]?.ok).toBe(false);
    expectOnlyTargetsTouched(before, snapshotOf(r), { targets: [] });
  });

  it('daemon.yaml of random bytes counts as a live daemon: the running project’s home is kept', async () => {
    const r = registry();
    writeAgents(r.m, [{ project: r.projects[0] as Project, mode: 'chat' }]);
    writeSettled(path.join(r.m.root, 'daemon.yaml'), randomBytes(300));
    backdate(r.m.root, daysAgo(1));
    const before = snapshotOf(r);
    const { report } = await watchfirePass(r, false);
    expect(itemAt(report, r.homes.get('Storefront') as string).verdict).toBe('kept');
    expect(itemAt(report, r.deleted).verdict).toBe('deleted');
    expectOnlyTargetsTouched(before, snapshotOf(r), { targets: [r.m.dir && path.relative(r.m.dir, r.deleted)] });
  });
});

describe("Kilo's agent-manager.json and Owl's config.yaml that cannot be trusted", () => {
  it.each([
    ['cut in half', (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ['empty', () => ''],
    ['random bytes', () => randomBytes(1024).toString('latin1')],
    ['huge', (text: string) => JSON.stringify({ ...JSON.parse(text), padding: 'x'.repeat(8_000_000) })],
  ])(
    'agent-manager.json %s: a checkpoint repository it might list is not deleted unless the file proves it unlisted',
    async (name, make) => {
      const h = mixedHome(tempDir('aj-json-'), { owl: false });
      const kilo = h.kilo as NonNullable<typeof h.kilo>;
      writeFileSync(kilo.managerFile, make(readFileSync(kilo.managerFile, 'utf8')));
      const before = h.snapshot();
      const { report } = await pass({ dir: h.runDir, config: h.config, env: ownEnv(h), only: ['kilo'] });
      const verdict = itemAt(report, kilo.dead).verdict;
      if (name === 'huge') expect(verdict).toBe('deleted');
      else expect(verdict).toBe('refused');
      expect(itemAt(report, kilo.quarantine).verdict).toBe('deleted');
      const targets = [kilo.quarantine, ...(verdict === 'deleted' ? [kilo.dead] : [])].map(h.key);
      const locks = h.key(path.join(kilo.state, 'locks'));
      expectOnlyTargetsTouched(before, h.snapshot(), {
        targets,
        scratch: (key) => /\.db-(wal|shm)$/.test(key) || key === locks || key.startsWith(`${locks}${path.sep}`),
      });
    },
  );

  it.each([
    ['random bytes', randomBytes(2048)],
    ['huge', `garbageCollection:\n  reviewAfter: 7d\n# ${'x'.repeat(5_000_000)}\n`],
    ['a bad duration', 'garbageCollection:\n  reviewAfter: soon\n'],
  ])(
    "Owl's config.yaml %s: the provider's own reviewAfter applies and the dead worktree still goes",
    async (_name, content) => {
      const h = mixedHome(tempDir('aj-owlcfg-'), { kilo: false });
      const owl = h.owl as NonNullable<typeof h.owl>;
      put(path.join(owl.configDir, 'config.yaml'), content);
      const { report, exitCode } = await pass({ dir: h.runDir, config: h.config, env: ownEnv(h), only: ['owl'] });
      expect(exitCode).toBe(0);
      expect(itemAt(report, owl.done).verdict).toBe('deleted');
    },
  );
});
