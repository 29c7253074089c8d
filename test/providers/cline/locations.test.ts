import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/model/errors.js';
import { runCli } from '../../helpers/cli.js';
import { itemAt } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { extensionStorage, stateDbOf, writeStateDb } from '../../engines/vscode-storage/fixtures.js';
import { CLINE_ID, clineScene, runCline, settle, workspaceRepo } from './fixtures.js';
import { KILO, ROO, rooScene, runRoo, settle as settleRoo, taskRepo } from '../roo/fixtures.js';
import { PROVIDERS } from '../../../src/providers/registry.js';

function configFile(text: string): string {
  const file = path.join(tempDir(), 'config.yaml');
  writeFileSync(file, text);
  return file;
}

describe('the cline and roo sections of the config', () => {
  it('are on by default, with both Roo extensions', async () => {
    const config = await loadConfig({ providers: PROVIDERS, env: { HOME: '/nonexistent' }, isRoot: false });
    expect(config.providers.cline).toEqual({ enabled: true });
    expect(config.providers.roo).toEqual({ enabled: true, extensions: ['roo', 'kilo'] });
  });

  it('read their keys, and name the file and key of a mistake', async () => {
    const config = await loadConfig({
      providers: PROVIDERS,
      file: configFile(
        'providers:\n  cline: { userDataDir: /opt/vscode-portable/data, dataDir: [/srv/cline/data] }\n  roo: { extensions: [kilo], userDataDir: [/a, /b] }\n',
      ),
      env: { HOME: '/nonexistent' },
    });
    expect(config.providers.cline).toEqual({
      enabled: true,
      userDataDir: ['/opt/vscode-portable/data'],
      dataDir: ['/srv/cline/data'],
    });
    expect(config.providers.roo).toEqual({ enabled: true, extensions: ['kilo'], userDataDir: ['/a', '/b'] });

    const bad = configFile('providers:\n  roo: { extensions: [cline] }\n');
    await expect(loadConfig({ providers: PROVIDERS, file: bad, env: {} })).rejects.toThrow(ConfigError);
    await expect(loadConfig({ providers: PROVIDERS, file: bad, env: {} })).rejects.toThrow(
      `${bad}: providers.roo.extensions[0]`,
    );
    const unknown = configFile('providers:\n  cline: { storage: /x }\n');
    await expect(loadConfig({ providers: PROVIDERS, file: unknown, env: {} })).rejects.toThrow(
      `${unknown}: unknown key providers.cline.storage`,
    );
  });

  it('are names --only takes, and an unknown one is a usage error', async () => {
    const home = tempDir('aj-only-');
    const report = tempDir('aj-only-report-');
    const ok = await runCli(
      ['run', '--report-only', '--only', 'cline,roo', '--home', home, '--report-dir', report, '--json'],
      { env: { HOME: home } },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).providers).toEqual([]);
    const wrong = await runCli(['run', '--only', 'cline,vscode', '--home', home, '--report-dir', report]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('vscode');
  });
});

describe('where the providers look', () => {
  it('cline: a user-data folder and a data folder named in the config, instead of the homes', async () => {
    const s = clineScene();
    const portable = path.join(s.root, 'portable', 'data');
    const gs = extensionStorage(portable, CLINE_ID);
    writeStateDb(stateDbOf(portable), {});
    const inPortable = workspaceRepo(gs, path.join(s.projects, 'p'), ['1790000000901']);
    const data = path.join(s.root, 'srv', 'cline-data');
    const inData = workspaceRepo(data, path.join(s.projects, 'q'), ['1790000000902']);
    const inHome = workspaceRepo(s.gs, path.join(s.projects, 'r'), ['1790000000903']);
    settle(s);

    const { report } = await runCline(s, {
      reportOnly: true,
      config: { providers: { cline: { userDataDir: portable, dataDir: data } } },
    });

    expect(report.providers.map((root) => root.root).sort()).toEqual([data, gs].sort());
    expect(itemAt(report, inPortable).verdict).toBe('would-delete');
    expect(itemAt(report, inData).verdict).toBe('would-delete');
    expect(report.items.some((item) => item.path === inHome)).toBe(false);
  });

  it('cline: the current user’s own home honours CLINE_DIR and XDG_CONFIG_HOME, another user’s does not', async () => {
    const s = clineScene();
    const clineDir = path.join(s.root, 'cline-dir');
    const ownData = workspaceRepo(path.join(clineDir, 'data'), path.join(s.projects, 'own'), ['1790000000911']);
    const xdg = path.join(s.root, 'xdg');
    const xdgGs = extensionStorage(path.join(xdg, 'Code'), CLINE_ID);
    writeStateDb(path.join(xdg, 'Code', 'User', 'globalStorage', 'state.vscdb'), {});
    const xdgRepo = workspaceRepo(xdgGs, path.join(s.projects, 'xdg'), ['1790000000912']);
    settle(s);

    const own = await runCline(s, {
      reportOnly: true,
      env: { HOME: s.home, CLINE_DIR: clineDir, XDG_CONFIG_HOME: xdg },
    });
    expect(itemAt(own.report, ownData).verdict).toBe('would-delete');
    expect(itemAt(own.report, xdgRepo).verdict).toBe('would-delete');
    const foreign = await runCline(s, { reportOnly: true, env: { CLINE_DIR: clineDir, XDG_CONFIG_HOME: xdg } });
    expect(foreign.report.items.some((item) => item.path === ownData || item.path === xdgRepo)).toBe(false);
  });

  it('roo: only the extensions the config names, and the user-data folders it names', async () => {
    const s = rooScene(ROO);
    const rooRepo = taskRepo(s, '0199a000-0000-7000-8000-000000000901', path.join(s.projects, 'a'));
    const kiloGs = extensionStorage(s.userData, KILO.key);
    const kiloRepo = taskRepo(
      { ...s, gs: kiloGs, extension: KILO },
      '0199a000-0000-7000-8000-000000000902',
      path.join(s.projects, 'b'),
    );
    settleRoo(s);

    const both = await runRoo(s, { reportOnly: true });
    expect(itemAt(both.report, rooRepo).verdict).toBe('would-delete');
    expect(itemAt(both.report, kiloRepo).verdict).toBe('would-delete');
    const kiloOnly = await runRoo(s, { reportOnly: true, config: { providers: { roo: { extensions: ['kilo'] } } } });
    expect(kiloOnly.report.items.map((item) => item.path)).toEqual([kiloRepo]);
    const named = await runRoo(s, {
      reportOnly: true,
      config: { homes: ['/nonexistent'], providers: { roo: { userDataDir: s.userData } } },
    });
    expect(named.report.items.map((item) => item.path).sort()).toEqual([kiloRepo, rooRepo].sort());
  });
});

describe('the areas cline and roo claim', () => {
  it('refuse a config in which a worktree set would judge folders of theirs', async () => {
    const s = clineScene();
    workspaceRepo(s.gs, path.join(s.projects, 'a'), ['1790000000990']);
    const r = rooScene();
    mkdirSync(path.join(r.gs, 'tasks'));
    settle(s);
    const overlapping = (roots: string[]) =>
      runCline(s, {
        config: { homes: [s.home, r.home], providers: { worktrees: { sets: [{ name: 'mine', roots }] } } },
      });
    await expect(overlapping([path.join(s.gs, 'checkpoints')])).rejects.toThrow(
      /cline .* and worktrees set mine|worktrees set mine .* and cline/,
    );
    await expect(overlapping([path.join(r.gs, 'tasks')])).rejects.toThrow(/roo/);
    const apart = await overlapping([path.join(s.root, 'elsewhere')]);
    expect(apart.exitCode).toBe(0);
  });
});
