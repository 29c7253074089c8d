import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { withProcessEnv } from '../helpers/process-env.js';
import { tempDir } from '../helpers/temp.js';
import {
  branchRepo,
  clineScene,
  historyItem,
  runCline,
  settle,
  workspaceRepo,
  writeTaskHistory,
} from '../providers/cline/fixtures.js';
import {
  historyItem as rooItem,
  rooScene,
  runRoo,
  settle as settleRoo,
  taskRepo,
  writeGlobalHistory,
} from '../providers/roo/fixtures.js';
import { makeRepo } from '../helpers/git-fixtures.js';
import { ended, inMountNamespace, quoted, unmountOnHost } from './support/namespaces.js';

/**
 * Rules 12 and 15 for the VS Code extensions' checkpoint repositories (Cline, Roo Code), whose
 * commits and branches are read with `git log`: whatever git config or variable the pass itself
 * has, only the repository's own config counts, and a process that reaches a repository through a
 * mount in another namespace keeps it. Built with the real git and real `unshare` namespaces; the
 * repositories are made as the extensions' sources make them (see test/cline and test/roo).
 */

/** A home for the pass with this global git config. */
function passHome(gitconfig: string): string {
  const home = tempDir('aj-pass-home-');
  put(path.join(home, '.gitconfig'), gitconfig);
  return home;
}

/** Hides every task branch from `git log --decorate`. */
const HIDE_BRANCHES = '[log]\n\texcludeDecoration = refs/heads/*\n';
/** Re-encodes every subject `git log` prints. */
const OTHER_ENCODING = '[i18n]\n\tlogOutputEncoding = UTF-16\n';

describe("Cline: the pass's own git config and variables never reach git log", () => {
  it('keeps a repository its live task names only by a branch while the pass home hides branches', async () => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    const alive = branchRepo(s.gs, ws('branches-live'), ['1790000000030']);
    const dead = branchRepo(s.gs, ws('branches-dead'), ['1790000000032']);
    writeTaskHistory(s.gs, [historyItem('1790000000030', ws('elsewhere'))]);
    settle(s);
    const before = inventory(alive);

    const { report } = await withProcessEnv({ HOME: passHome(HIDE_BRANCHES), XDG_CONFIG_HOME: '' }, () => runCline(s));

    expect(itemAt(report, alive)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(report, alive).detail).toContain('1790000000030');
    expect(inventory(alive)).toEqual(before);
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
  });

  it.each([
    ['GIT_CONFIG_PARAMETERS', () => ({ GIT_CONFIG_PARAMETERS: "'log.excludedecoration'='refs/heads/*'" })],
    [
      'GIT_CONFIG_COUNT, KEY_0 and VALUE_0',
      () => ({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'log.excludeDecoration', GIT_CONFIG_VALUE_0: 'refs/heads/*' }),
    ],
    ['GIT_OBJECT_DIRECTORY', (decoy: string) => ({ GIT_OBJECT_DIRECTORY: path.join(decoy, '.git', 'objects') })],
  ] as const)('with %s leaked into the pass, reads each repository as it is', async (_name, leak) => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    const byBranch = branchRepo(s.gs, ws('branches-live'), ['1790000000040']);
    const byCommit = workspaceRepo(s.gs, ws('commits-live'), ['1790000000041']);
    const handmade = workspaceRepo(s.gs, ws('handmade'), ['1790000000042'], { extra: ['wip: my own commit'] });
    const dead = workspaceRepo(s.gs, ws('dead'), ['1790000000043']);
    writeTaskHistory(s.gs, [
      historyItem('1790000000040', ws('elsewhere')),
      historyItem('1790000000041', ws('elsewhere')),
    ]);
    settle(s);
    const decoy = makeRepo(path.join(tempDir('aj-decoy-'), 'decoy'));

    const { report } = await withProcessEnv(leak(decoy), () => runCline(s));

    expect(itemAt(report, byBranch)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(report, byCommit)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expect(itemAt(report, handmade)).toMatchObject({ verdict: 'unfinished', reason: 'unknown-commits' });
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
  });
});

describe("Roo Code: the pass's own git config and variables never reach git log", () => {
  const ID = (n: number) => `0199a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

  it.each([
    [
      'a pass home whose global config re-encodes subjects',
      () => ({ HOME: passHome(OTHER_ENCODING), XDG_CONFIG_HOME: '' }),
    ],
    ['GIT_CONFIG_PARAMETERS', () => ({ GIT_CONFIG_PARAMETERS: "'i18n.logoutputencoding'='UTF-16'" })],
    ['GIT_OBJECT_DIRECTORY', (decoy: string) => ({ GIT_OBJECT_DIRECTORY: path.join(decoy, '.git', 'objects') })],
  ] as const)(
    'with %s, reports a repository someone else committed into and deletes a dead one',
    async (_name, leak) => {
      const s = rooScene();
      const ws = path.join(s.projects, 'w');
      const live = taskRepo(s, ID(1), ws);
      const handmade = taskRepo(s, ID(2), ws, { extra: ['wip: my experiment'] });
      const dead = taskRepo(s, ID(3), ws);
      writeGlobalHistory(s, [rooItem(ID(1), ws)]);
      settleRoo(s);
      const decoy = makeRepo(path.join(tempDir('aj-decoy-'), 'decoy'));

      const { report } = await withProcessEnv(leak(decoy), () => runRoo(s));

      expect(itemAt(report, live).verdict).toBe('kept');
      expect(itemAt(report, handmade)).toMatchObject({ verdict: 'unfinished', reason: 'unknown-commits' });
      expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted' });
    },
  );
});

describe('Cline and Roo Code: a process in another mount namespace', () => {
  afterEach(unmountOnHost);

  it('keeps a dead-looking repository an agent works in through a bind mount of the home, until it has gone', async () => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    const repo = workspaceRepo(s.gs, ws('dead'), ['1790000000050']);
    settle(s);
    const view = tempDir('aj-view-');
    const seen = path.join(view, path.relative(s.root, path.join(repo, '.git', 'refs')));
    const agent = await inMountNamespace(
      `mount --bind ${quoted(s.root)} ${quoted(view)}; cd ${quoted(seen)}; exec sleep 600`,
      'sleep',
    );
    const held = await runCline(s);
    expect(itemAt(held.report, repo)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(held.report, repo).detail).toContain(`process ${agent.pid}`);

    await ended(agent);
    const after = await runCline(s);
    expect(itemAt(after.report, repo)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
  });

  it('keeps a Roo Code task repository whose object an agent holds open through the mount', async () => {
    const s = rooScene();
    const ID = '0199a000-0000-7000-8000-000000000060';
    const repo = taskRepo(s, ID, path.join(s.projects, 'w'));
    settleRoo(s);
    const view = tempDir('aj-view-');
    const config = path.join(view, path.relative(s.root, path.join(repo, '.git', 'config')));
    const agent = await inMountNamespace(
      `mount --bind ${quoted(s.root)} ${quoted(view)}; cd /; exec sleep 600 3< ${quoted(config)}`,
      'sleep',
    );
    const held = await runRoo(s);
    expect(itemAt(held.report, repo)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(held.report, repo).detail).toContain(`process ${agent.pid}`);

    await ended(agent);
    const after = await runRoo(s);
    expect(itemAt(after.report, repo).verdict).toBe('deleted');
  });
});
