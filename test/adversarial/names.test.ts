import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { sessionName } from '../../src/providers/watchfire/slug.js';
import { runCli } from '../helpers/cli.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { spawnLiving } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import { daemonLock, project, writeAgents, writeDaemon, writeProjects } from '../providers/watchfire/fixture.js';
import { addWorktree, commitFile, makeRepo, sh } from '../helpers/git-fixtures.js';
import { adminDirOf, expectOnlyTargetsTouched } from './support/compare.js';
import { runArgs, world } from './support/watchfire-world.js';

/**
 * Issue 6, case 4 (names): session, project and folder names with newlines, spaces, unicode,
 * leading dashes, `..`, shell and glob characters. Dead ones go whole, live ones stay whole, the
 * report names each exactly, and nothing outside the targets changes.
 */

const NASTY = [
  '-rf',
  '--help',
  '-',
  'a b  c',
  'new\nline',
  'tab\there',
  'ünïcödé-日本語',
  'emoji-🧹✨',
  '..dotdot..',
  '...',
  ' leading-space',
  'trailing-space ',
  'back\\slash',
  `quote"s'`,
  '$(touch pwned)',
  '`id`',
  '*glob?[x]',
  '%s%n%x',
  'nul-ish-\u0001-\u007f',
  'x'.repeat(250),
];

describe('hostile names', () => {
  it('deletes dead session homes made from hostile project names whole, hostile file names in them included; refuses folders that are no session name', async () => {
    const w = world();
    const inside = (name: string) => ({
      [name.length > 200 ? 'long' : name]: `content of ${JSON.stringify(name)}\n`,
      [path.join('-rf', '..', 'x')]: 'a folder named -rf and a file beside it\n',
      [path.join('sub dir', '--version')]: 'dash file\n',
      [path.join('..data', '. ', 'f')]: 'dots\n',
      [path.join('sessions', `${name.length > 200 ? 'long' : name}.jsonl`)]: '{}\n',
    });
    const sessionHomes = [
      ...new Set(
        NASTY.map((name) => sessionName({ projectName: name, mode: 'task', task: { number: 7, title: name } })),
      ),
    ];
    const dead = sessionHomes.map((name, index) => w.session(name, inside(NASTY[index] as string)));
    // Folders whose names are no session name Watchfire could have made: never Watchfire's to delete.
    const foreign = NASTY.map((name) => w.session(name, inside(name)));
    symlinkSync(w.outside, path.join(dead[0] as string, 'link to outside'));
    symlinkSync('..', path.join(dead[1] as string, '..link'));
    w.age();
    const before = w.snapshot();

    const run = await runCli(runArgs(w), { env: w.env });

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    for (const home of dead)
      expect(itemAt(report, home), JSON.stringify(home)).toMatchObject({
        verdict: 'deleted',
        reason: 'project-deleted',
      });
    for (const home of foreign)
      expect(itemAt(report, home), JSON.stringify(home)).toMatchObject({
        verdict: 'refused',
        reason: 'unrecognized-name',
      });
    expect(report.totals.deleted).toBe(dead.length);
    expectOnlyTargetsTouched(before, w.snapshot(), { targets: dead.map(w.key) });
    // The Markdown report keeps one line per item even when a name holds a newline.
    const markdown = readFileSync(path.join(w.reportDir, 'report.md'), 'utf8');
    expect(markdown).not.toContain('new\nline');
    expect(existsSync(path.join(w.dir, 'pwned'))).toBe(false);
    expect(existsSync(path.join(process.cwd(), 'pwned'))).toBe(false);
  });

  it('keeps the homes of running projects with hostile names, matched by their slug, and deletes the dead ones', async () => {
    const w = world();
    const m = { ...w };
    const running = NASTY.slice(0, 10).map((name) => project(`${name} live`));
    const stopped = project('-rf ünï\nstopped');
    writeProjects(m, [...running, stopped]);
    writeAgents(
      m,
      running.map((p) => ({ project: p, mode: 'chat' })),
    );
    daemonLock(m);
    writeDaemon(m, spawnLiving('sleep', ['600']).pid as number);
    const kept = running.map((p) =>
      w.session(sessionName({ projectName: p.name, mode: 'chat' }), {
        'AGENTS.md': '# prompt\n',
        'sessions/r.jsonl': '{}\n',
      }),
    );
    const dead = w.session(
      sessionName({ projectName: 'gone -rf ✨', mode: 'task', task: { number: 3, title: '..\n$(x)' } }),
      { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': '{}\n' },
    );
    w.age();
    const before = w.snapshot();

    const run = await runCli(runArgs(w), { env: w.env });

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    for (const home of new Set(kept)) expect(itemAt(report, home).verdict).toBe('kept');
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
    expectOnlyTargetsTouched(before, w.snapshot(), { targets: [w.key(dead)] });
  });

  it('removes merged agent worktrees whose folders have hostile names with git worktree remove, and keeps the dirty ones', async () => {
    const dir = tempDir('aj-names-wt-');
    const repo = makeRepo(path.join(dir, 'repo'));
    const root = path.join(dir, 'worktrees');
    const names = ['-rf', '--force', 'a b', 'ünï 日本', 'new\nline', '..dots', '$(touch pwned)'];
    const merged: string[] = [];
    const dirty: string[] = [];
    names.forEach((name, index) => {
      const clean = addWorktree(repo, path.join(root, `${name}`), `agent/clean-${index}`);
      commitFile(clean, `f${index}.txt`, `${index}\n`);
      sh(repo, 'branch', '-f', `merged-${index}`, `agent/clean-${index}`);
      merged.push(clean);
      const changed = addWorktree(repo, path.join(root, `${name}-dirty`), `agent/dirty-${index}`);
      put(path.join(changed, `${name.includes('\n') ? 'nl' : name}.txt`), 'uncommitted\n');
      dirty.push(changed);
    });
    backdate(dir, daysAgo(10));
    const run = path.join(dir, 'run');
    const config = path.join(dir, 'agent-janitor.yaml');
    put(
      config,
      stringify({
        homes: [path.join(dir, 'nohome')],
        minAge: '1h',
        reportDir: path.join(run, 'report'),
        providers: { worktrees: { sets: [{ name: 'agents', roots: [root], idleAfter: '1d' }] } },
      }),
    );
    const snapshot = () => inventory(dir, { exclude: [run] });
    const key = (p: string) => path.relative(dir, p);
    const adminEntries = merged.map((folder) => adminDirOf(folder) as string);
    const before = snapshot();

    const result = await runCli(['run', '--config', config, '--json', '--only', 'worktrees', '--log-level', 'warn'], {
      env: { HOME: path.join(dir, 'nohome') },
    });

    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    for (const folder of merged) expect(itemAt(report, folder).verdict, JSON.stringify(folder)).toBe('deleted');
    for (const folder of dirty)
      expect(itemAt(report, folder), JSON.stringify(folder)).toMatchObject({
        verdict: 'unfinished',
        reason: 'uncommitted-changes',
      });
    // git worktree remove takes each worktree's admin entry with it; branches all stay.
    expectOnlyTargetsTouched(before, snapshot(), { targets: [...merged, ...adminEntries].map(key) });
    for (const folder of dirty) expect(existsSync(folder)).toBe(true);
    expect(sh(repo, 'branch', '--list', 'agent/*').split('\n').filter(Boolean)).toHaveLength(names.length * 2);
    expect(existsSync(path.join(root, 'pwned'))).toBe(false);
  });
});
