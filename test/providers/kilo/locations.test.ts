import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { kiloLocations } from '../../../src/providers/kilo/layout.js';
import { itemAt } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import {
  addKiloWorktree,
  git,
  lockDirOf,
  makeKiloDb,
  makeSnapshot,
  removeKiloWorktree,
  writeKiloLock,
} from './fixtures.js';
import { runKilo, scene } from './scene.js';
import { PROVIDERS } from '../../../src/providers/registry.js';

async function locationsFor(config: Record<string, unknown>, homes: string[], env: NodeJS.ProcessEnv) {
  const dir = tempDir();
  const file = path.join(dir, 'c.yaml');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, JSON.stringify(config));
  const loaded = await loadConfig({ providers: PROVIDERS, file, env });
  return kiloLocations({ config: loaded, homes, env });
}

describe('where kilo and opencode keep their data', () => {
  it('derives both apps from every home, honouring XDG variables for the current user only', async () => {
    const own = await locationsFor({}, ['/home/ana', '/home/bo'], {
      HOME: '/home/ana',
      XDG_DATA_HOME: '/data/ana',
      XDG_STATE_HOME: '/state/ana',
      KILO_DB: 'custom.db',
    });
    expect(own.map((entry) => [entry.app, entry.dataDir, entry.stateDir, entry.extraDatabase])).toEqual([
      ['kilo', '/data/ana/kilo', '/state/ana/kilo', '/data/ana/kilo/custom.db'],
      ['opencode', '/data/ana/opencode', '/state/ana/opencode', undefined],
      ['kilo', '/home/bo/.local/share/kilo', '/home/bo/.local/state/kilo', undefined],
      ['opencode', '/home/bo/.local/share/opencode', '/home/bo/.local/state/opencode', undefined],
    ]);
    const relative = await locationsFor({ providers: { kilo: { apps: ['kilo'] } } }, ['/home/ana'], {
      HOME: '/home/ana',
      XDG_DATA_HOME: 'rel/data',
    });
    expect(relative.map((entry) => entry.dataDir)).toEqual(['/home/ana/.local/share/kilo']);
  });

  it('pairs configured dataDir and stateDir lists by index, derives a missing stateDir, and names a mismatch', async () => {
    const paired = await locationsFor(
      {
        providers: {
          kilo: { dataDir: ['/a/share/kilo', '/b/kilo-data'], stateDir: ['/a/state/kilo', '/b/kilo-state'] },
        },
      },
      ['/home/x'],
      {},
    );
    expect(paired.map((entry) => [entry.dataDir, entry.stateDir, entry.problem])).toEqual([
      ['/a/share/kilo', '/a/state/kilo', undefined],
      ['/b/kilo-data', '/b/kilo-state', undefined],
    ]);
    const derived = await locationsFor(
      { providers: { kilo: { dataDir: ['/a/share/opencode', '/srv/kilo'] } } },
      [],
      {},
    );
    expect(derived[0]).toMatchObject({ app: 'opencode', stateDir: '/a/state/opencode' });
    expect(derived[0]?.problem).toBeUndefined();
    expect(derived[1]?.stateDir).toBeNull();
    expect(derived[1]?.problem).toContain('providers.kilo.stateDir');
    const mismatched = await locationsFor({ providers: { kilo: { dataDir: ['/a', '/b'], stateDir: '/s' } } }, [], {});
    expect(mismatched.every((entry) => entry.problem?.includes('pair by index'))).toBe(true);
  });

  it('runs on configured folders, refusing (provider not ok) where the lock folder cannot be known', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    const lockDir = lockDirOf(s.state, repo);

    const unknown = await runKilo(s, {
      config: { homes: ['/nonexistent'], providers: { kilo: { dataDir: s.data, stateDir: [s.state, '/x'] } } },
    });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.report.providers[0]).toMatchObject({ root: s.data, ok: false });
    expect(itemAt(unknown.report, repo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(existsSync(repo)).toBe(true);

    // With the pair named, the lock is looked for (and honoured) in the configured state folder.
    writeKiloLock(lockDir, new Date());
    const held = await runKilo(s, {
      config: { homes: ['/nonexistent'], providers: { kilo: { dataDir: [s.data], stateDir: [s.state] } } },
    });
    expect(itemAt(held.report, repo)).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    (await import('node:fs')).rmSync(lockDir, { recursive: true });
    const freed = await runKilo(s, {
      config: { homes: ['/nonexistent'], providers: { kilo: { dataDir: [s.data], stateDir: [s.state] } } },
    });
    expect(itemAt(freed.report, repo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
  });

  it("handles opencode's own data folder and database, and its server-made worktrees", async () => {
    const s = scene('opencode');
    const worktree = path.join(s.data, 'worktree', s.projectId, 'calm-river');
    git(['-C', s.repo, 'worktree', 'add', '-q', '-b', 'opencode/calm-river', worktree]);
    const repo = makeSnapshot(s.data, s.projectId, worktree);
    git(['-C', s.repo, 'worktree', 'remove', '--force', worktree]);
    makeKiloDb(path.join(s.data, 'opencode.db'), { projects: [{ id: s.projectId, worktree: s.repo }] });
    const main = makeSnapshot(s.data, s.projectId, s.repo);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'kilo', root: s.data, ok: true }]);
    expect(itemAt(report, repo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(itemAt(report, main)).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    // opencode has no snapshot lock: the pass writes nothing into its state folder.
    expect(existsSync(path.join(s.home, '.local', 'state', 'opencode', 'locks'))).toBe(false);
  });

  it("uses XDG_DATA_HOME and XDG_STATE_HOME when the home is the current user's", async () => {
    const s = scene();
    const dataHome = path.join(s.root, 'xdg-data');
    const stateHome = path.join(s.root, 'xdg-state');
    mkdirSync(path.join(dataHome, 'kilo'), { recursive: true });
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(path.join(dataHome, 'kilo'), s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    writeKiloLock(lockDirOf(path.join(stateHome, 'kilo'), repo), new Date());

    const { report } = await runKilo(s, { env: { HOME: s.home, XDG_DATA_HOME: dataHome, XDG_STATE_HOME: stateHome } });

    expect(report.providers.map((root) => root.root)).toEqual([path.join(dataHome, 'kilo')]);
    expect(itemAt(report, repo)).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
  });
});
