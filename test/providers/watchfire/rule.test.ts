import { readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { itemAt } from '../../helpers/pass.js';
import { holdFlock, sleeperIn, spawnLiving } from '../../helpers/processes.js';
import {
  ageAll,
  daemonLock,
  deadPid,
  expectOnlyRemoved,
  expectUnchanged,
  linkCodexConfig,
  linkOpencodeConfig,
  machine,
  makeHome,
  passOver,
  project,
  snapshot,
  userConfig,
  writeAgents,
  writeDaemon,
  writeProjects,
  writeSessionLog,
  writeWatchfireExtras,
} from './fixture.js';

describe('watchfire: deleted projects', () => {
  it("deletes a deleted project's homes in every backend, and nothing else", async () => {
    const m = machine();
    const alive = project('Alive');
    writeProjects(m, [alive]);
    writeWatchfireExtras(m, alive);
    const gone = [
      makeHome(m, 'codex', { projectName: 'Old Project', mode: 'chat' }),
      makeHome(
        m,
        'opencode',
        { projectName: 'Old Project', mode: 'task', task: { number: 3, title: 'Fix login' } },
        'opencode-session',
      ),
      makeHome(m, 'gemini', { projectName: 'Old Project', mode: 'wildfire-execute' }, 'prompt-only'),
      makeHome(m, 'newbackend', { projectName: 'Old Project', mode: 'gen-tasks' }),
    ];
    const unfinished = makeHome(m, 'codex', { projectName: 'Alive', mode: 'chat' });
    ageAll(m, daysAgo(3));
    const before = snapshot(m);

    const { report, exitCode } = await passOver(m);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([{ provider: 'watchfire', root: m.root, ok: true }]);
    for (const home of gone)
      expect(itemAt(report, home)).toMatchObject({
        verdict: 'deleted',
        reason: 'project-deleted',
        kind: 'session-home',
      });
    expect(itemAt(report, gone[0] as string).bytes).toBeGreaterThan(0);
    expect(itemAt(report, unfinished)).toMatchObject({ verdict: 'unfinished', reason: 'transcript-not-exported' });
    expectOnlyRemoved(m, before, snapshot(m), gone);
  });

  it('treats the empty slug of an all-symbol name like any other', async () => {
    const m = machine();
    const symbols = project('***');
    writeProjects(m, [symbols]);
    const registered = makeHome(m, 'codex', { projectName: '!!!', mode: 'chat' });
    expect(path.basename(registered)).toBe(':chat');
    ageAll(m, daysAgo(2));
    const { report } = await passOver(m);
    expect(itemAt(report, registered)).toMatchObject({ verdict: 'unfinished', reason: 'transcript-not-exported' });

    writeProjects(m, []);
    ageAll(m, daysAgo(2));
    const before = snapshot(m);
    const second = await passOver(m);
    expect(itemAt(second.report, registered)).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
    expectOnlyRemoved(m, before, snapshot(m), [registered]);
  });
});

describe('watchfire: running projects', () => {
  async function runningSetup(liveBy: 'lock-and-pid' | 'pid' | 'lock') {
    const m = machine();
    const app = project('Running App');
    writeProjects(m, [app]);
    writeAgents(m, [{ project: app, mode: 'wildfire-execute' }]);
    const lock = daemonLock(m);
    if (liveBy === 'lock-and-pid') {
      const holder = await holdFlock(lock);
      writeDaemon(m, holder.pid as number);
    } else if (liveBy === 'pid') {
      writeDaemon(m, spawnLiving('sleep', ['600']).pid as number);
    } else {
      await holdFlock(lock);
      writeDaemon(m, await deadPid());
    }
    const homes = [
      makeHome(m, 'codex', { projectName: 'Running App', mode: 'wildfire-refine' }),
      makeHome(m, 'opencode', { projectName: 'Running App', mode: 'chat' }, 'prompt-only'),
    ];
    const deleted = makeHome(m, 'codex', { projectName: 'Deleted One', mode: 'chat' });
    ageAll(m, daysAgo(2));
    return { m, homes, deleted };
  }

  for (const liveBy of ['lock-and-pid', 'pid', 'lock'] as const) {
    it(`keeps every home of a project in agents.yaml while the daemon is live (${liveBy})`, async () => {
      const { m, homes, deleted } = await runningSetup(liveBy);
      const before = snapshot(m);
      const { report, exitCode } = await passOver(m);
      expect(exitCode).toBe(0);
      for (const home of homes) {
        const item = itemAt(report, home);
        expect(item).toMatchObject({ verdict: 'kept', reason: 'session-running' });
        expect(item.detail).toContain(liveBy === 'pid' ? 'daemon.yaml names pid' : 'daemon.lock is held');
      }
      expect(itemAt(report, deleted)).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
      expectOnlyRemoved(m, before, snapshot(m), [deleted]);
    });
  }

  it('takes the daemon as live when daemon.yaml cannot be read, so a running project keeps its homes', async () => {
    const m = machine();
    const app = project('Running App');
    writeProjects(m, [app]);
    writeAgents(m, [{ project: app, mode: 'chat' }]);
    daemonLock(m);
    put(path.join(m.root, 'daemon.yaml'), 'version: 1\npid: [not a pid\n');
    const home = makeHome(m, 'codex', { projectName: 'Running App', mode: 'chat' });
    ageAll(m, daysAgo(2));
    const before = snapshot(m);
    const { report } = await passOver(m);
    expect(itemAt(report, home)).toMatchObject({ verdict: 'kept', reason: 'session-running' });
    expect(itemAt(report, home).detail).toMatch(/taken as live: .*daemon\.yaml/);
    expectUnchanged(before, snapshot(m));
  });

  it('calls an unexported home interrupted when the daemon died with agents.yaml left over', async () => {
    const m = machine();
    const app = project('Crashed App');
    const other = project('Other App');
    writeProjects(m, [app, other]);
    writeAgents(m, [{ project: app, mode: 'task', task: { number: 12, title: 'Add search' } }]);
    daemonLock(m);
    writeDaemon(m, await deadPid());
    const interrupted = makeHome(m, 'codex', {
      projectName: 'Crashed App',
      mode: 'task',
      task: { number: 12, title: 'Add search' },
    });
    const failedStart = makeHome(m, 'gemini', { projectName: 'Crashed App', mode: 'chat' }, 'prompt-only');
    const notRunning = makeHome(m, 'codex', { projectName: 'Other App', mode: 'chat' });
    ageAll(m, daysAgo(1));
    const before = snapshot(m);

    const { report, exitCode } = await passOver(m);

    expect(exitCode).toBe(0);
    const item = itemAt(report, interrupted);
    expect(item).toMatchObject({ verdict: 'unfinished', reason: 'session-interrupted' });
    expect(item.detail).toMatch(/daemon died .*pid \d+ is dead/);
    expect(itemAt(report, failedStart)).toMatchObject({ verdict: 'deleted', reason: 'failed-start' });
    expect(itemAt(report, notRunning)).toMatchObject({ verdict: 'unfinished', reason: 'transcript-not-exported' });
    expectOnlyRemoved(m, before, snapshot(m), [failedStart]);
  });
});

describe('watchfire: registered projects that are not running', () => {
  it('deletes a home whose transcript a later session log exported, keeps one without, deletes a failed start', async () => {
    const m = machine();
    const app = project('Shop Front');
    writeProjects(m, [app]);
    writeWatchfireExtras(m, app);
    const exported = makeHome(m, 'codex', { projectName: 'Shop Front', mode: 'chat' });
    const later = makeHome(m, 'copilot', {
      projectName: 'Shop Front',
      mode: 'task',
      task: { number: 4, title: 'Cart' },
    });
    const failedStart = makeHome(m, 'codex', { projectName: 'Shop Front', mode: 'gen-definition' }, 'prompt-only');
    const { codex } = userConfig(m);
    linkCodexConfig(failedStart, codex);
    writeSessionLog(m, app, daysAgo(2), { status: 'interrupted' });
    ageAll(m, daysAgo(3));
    // Written after the last log ended: these homes' newest writes are not covered by it.
    put(path.join(later, 'session-state', 's1', 'events.jsonl'), '{"type":"message"}\n');
    backdate(later, daysAgo(1));
    backdate(failedStart, daysAgo(1));
    const before = snapshot(m);

    const { report } = await passOver(m);

    expect(itemAt(report, exported)).toMatchObject({ verdict: 'deleted', reason: 'transcript-exported' });
    expect(itemAt(report, exported).detail).toMatch(/chat-0-.*\.log \(status interrupted\)/);
    expect(itemAt(report, later)).toMatchObject({ verdict: 'unfinished', reason: 'transcript-not-exported' });
    expect(itemAt(report, later).detail).toMatch(/newest write .* may hold the only transcript/);
    expect(itemAt(report, failedStart)).toMatchObject({ verdict: 'deleted', reason: 'failed-start' });
    expectOnlyRemoved(m, before, snapshot(m), [exported, failedStart]);
  });

  it('needs the log to end at or after the newest write, to the millisecond', async () => {
    const m = machine();
    const app = project('Edge');
    writeProjects(m, [app]);
    const equal = makeHome(m, 'codex', { projectName: 'Edge', mode: 'chat' });
    const ended = new Date(Date.parse('2026-01-10T08:00:00Z'));
    writeSessionLog(m, app, ended);
    ageAll(m, ended);
    const before = snapshot(m);
    const { report } = await passOver(m);
    expect(itemAt(report, equal)).toMatchObject({ verdict: 'deleted', reason: 'transcript-exported' });
    expectOnlyRemoved(m, before, snapshot(m), [equal]);

    const oneMsLate = makeHome(m, 'codex', { projectName: 'Edge', mode: 'agent' });
    ageAll(m, new Date(ended.getTime() + 1));
    const second = await passOver(m);
    expect(itemAt(second.report, oneMsLate)).toMatchObject({
      verdict: 'unfinished',
      reason: 'transcript-not-exported',
    });
  });

  it('takes no session log dated in the future as proof: a home 2 hours old with a log ending in 2099 is refused', async () => {
    const m = machine();
    const app = project('Time Travel');
    writeProjects(m, [app]);
    const young = makeHome(m, 'codex', { projectName: 'Time Travel', mode: 'chat' });
    writeSessionLog(m, app, new Date(Date.parse('2099-01-01T00:00:00Z')));
    ageAll(m, new Date(Date.now() - 2 * 3_600_000));
    const before = snapshot(m);

    const { report, exitCode } = await passOver(m);

    expect(exitCode).toBe(0);
    expect(itemAt(report, young)).toMatchObject({ verdict: 'refused', reason: 'clock-skew' });
    expect(itemAt(report, young).detail).toMatch(/2099-01-01T00:00:00\.000Z.*ahead of this pass's clock/);
    expectUnchanged(before, snapshot(m));
  });

  it('believes a log a few seconds ahead (clocks drift), and a credible log beside a future one', async () => {
    const m = machine();
    const app = project('Drift');
    writeProjects(m, [app]);
    const drifted = makeHome(m, 'codex', { projectName: 'Drift', mode: 'chat' });
    ageAll(m, new Date(Date.now() - 2 * 3_600_000));
    writeSessionLog(m, app, new Date(Date.now() + 60_000));
    writeSessionLog(m, app, new Date(Date.parse('2099-01-01T00:00:00Z')), { mode: 'agent' });
    const before = snapshot(m);

    const { report } = await passOver(m);

    expect(itemAt(report, drifted)).toMatchObject({ verdict: 'deleted', reason: 'transcript-exported' });
    expectOnlyRemoved(m, before, snapshot(m), [drifted]);
  });

  it('keeps the homes of a running project that shares its 30-byte slug with a deleted one', async () => {
    const m = machine();
    const tools = project('Acme Platform Services Backend Tools');
    writeProjects(m, [tools]);
    writeAgents(m, [{ project: tools, mode: 'chat' }]);
    const holder = await holdFlock(daemonLock(m));
    writeDaemon(m, holder.pid as number);
    // These names are shared with the deleted "Acme Platform Services Backend Team".
    const shared = [
      makeHome(m, 'codex', { projectName: 'Acme Platform Services Backend Team', mode: 'chat' }),
      makeHome(
        m,
        'opencode',
        { projectName: 'Acme Platform Services Backend Team', mode: 'task', task: { number: 1, title: 'x' } },
        'opencode-session',
      ),
    ];
    const trulyDeleted = makeHome(m, 'codex', { projectName: 'Zeta', mode: 'chat' });
    ageAll(m, daysAgo(2));
    const before = snapshot(m);

    const { report } = await passOver(m);

    for (const home of shared)
      expect(itemAt(report, home)).toMatchObject({ verdict: 'kept', reason: 'session-running' });
    expect(itemAt(report, trulyDeleted).verdict).toBe('deleted');
    expectOnlyRemoved(m, before, snapshot(m), [trulyDeleted]);
  });

  it('does not delete a shared-slug home as deleted while one of the two projects is registered', async () => {
    const m = machine();
    writeProjects(m, [project('Acme Platform Services Backend Tools')]);
    const shared = makeHome(m, 'codex', { projectName: 'Acme Platform Services Backend Team', mode: 'chat' });
    ageAll(m, daysAgo(2));
    const before = snapshot(m);
    const { report } = await passOver(m);
    expect(itemAt(report, shared)).toMatchObject({ verdict: 'unfinished', reason: 'transcript-not-exported' });
    expectUnchanged(before, snapshot(m));
  });
});

describe('watchfire: links and safety', () => {
  it("removes a home's links into ~/.codex and ~/.config/opencode and leaves what they point at byte for byte", async () => {
    const m = machine();
    writeProjects(m, [project('Keeper')]);
    const { codex, opencode } = userConfig(m);
    const codexHome = makeHome(m, 'codex', { projectName: 'Gone', mode: 'chat' });
    linkCodexConfig(codexHome, codex);
    const opencodeHome = makeHome(
      m,
      'opencode',
      { projectName: 'Gone', mode: 'task', task: { number: 9, title: 'Docs' } },
      'opencode-session',
    );
    linkOpencodeConfig(opencodeHome, opencode, readdirSync(opencode));
    const failedOpencode = path.join(m.root, 'opencode-home', 'gone:chat');
    linkOpencodeConfig(failedOpencode, opencode, readdirSync(opencode));
    ageAll(m, daysAgo(4));
    const codexBefore = snapshot(m);

    const { report } = await passOver(m);

    for (const home of [codexHome, opencodeHome, failedOpencode]) expect(itemAt(report, home).verdict).toBe('deleted');
    expectOnlyRemoved(m, codexBefore, snapshot(m), [codexHome, opencodeHome, failedOpencode]);
    expect(readdirSync(path.join(opencode, 'plugin', 'deep'))).toEqual(['index.js']);
  });

  it('refuses a home that is itself a symlink and leaves its target alone', async () => {
    const m = machine();
    writeProjects(m, [project('Keeper')]);
    const target = path.join(m.dir, 'elsewhere', 'precious');
    put(path.join(target, 'work.txt'), 'only copy');
    const link = path.join(m.root, 'codex-home', 'gone:chat');
    makeHome(m, 'codex', { projectName: 'Gone', mode: 'agent' });
    symlinkSync(target, link);
    ageAll(m, daysAgo(2));
    const before = snapshot(m);

    const { report } = await passOver(m);

    expect(itemAt(report, link)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    const removed = path.join(m.root, 'codex-home', 'gone:agent');
    expectOnlyRemoved(m, before, snapshot(m), [removed]);
  });

  it('refuses a home written more recently than minAge', async () => {
    const m = machine();
    writeProjects(m, [project('Keeper')]);
    const home = makeHome(m, 'codex', { projectName: 'Gone', mode: 'chat' });
    ageAll(m, daysAgo(2));
    put(path.join(home, 'sessions', 'fresh.jsonl'), 'written a minute ago');
    const before = snapshot(m);
    const { report } = await passOver(m);
    expect(itemAt(report, home)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expectUnchanged(before, snapshot(m));
  });

  it('refuses a home with a live process inside', async () => {
    const m = machine();
    writeProjects(m, [project('Keeper')]);
    const home = makeHome(m, 'codex', { projectName: 'Gone', mode: 'chat' });
    ageAll(m, daysAgo(2));
    const sleeper = sleeperIn(path.join(home, 'sessions'));
    const before = snapshot(m);
    const { report } = await passOver(m);
    const item = itemAt(report, home);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(String(sleeper.pid));
    expectUnchanged(before, snapshot(m));
  });

  it('refuses folders whose names are no session names, and leaves files in *-home alone', async () => {
    const m = machine();
    writeProjects(m, []);
    const odd = path.join(m.root, 'codex-home', 'not-a-session');
    put(path.join(odd, 'notes.txt'), 'mine');
    put(path.join(m.root, 'codex-home', 'README'), 'a file, not a home');
    ageAll(m, daysAgo(2));
    const before = snapshot(m);
    const { report } = await passOver(m);
    expect(itemAt(report, odd)).toMatchObject({ verdict: 'refused', reason: 'unrecognized-name' });
    expect(report.items.map((item) => item.path)).toEqual([odd]);
    expectUnchanged(before, snapshot(m));
  });

  it('reports nothing for a home without .watchfire', async () => {
    const m = machine({ withRoot: false });
    const before = snapshot(m);
    const { report, exitCode } = await passOver(m);
    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([]);
    expect(report.items).toEqual([]);
    expectUnchanged(before, snapshot(m));
  });

  it('uses the roots the config names instead of the homes', async () => {
    const m = machine({ withRoot: false });
    const elsewhere = path.join(m.dir, 'srv', 'watchfire-state');
    const m2 = { ...m, root: elsewhere };
    put(path.join(elsewhere, 'projects.yaml'), 'version: 1\nprojects: []\n');
    const home = makeHome(m2, 'codex', { projectName: 'Gone', mode: 'chat' });
    backdate(path.join(m.dir, 'srv'), daysAgo(2));
    const { report } = await passOver(m, { config: { providers: { watchfire: { root: [elsewhere] } } } });
    expect(report.providers).toEqual([{ provider: 'watchfire', root: elsewhere, ok: true }]);
    expect(itemAt(report, home).verdict).toBe('deleted');
  });

  it('reports a root it cannot read as failed and still reconciles the others', async () => {
    const m = machine();
    writeProjects(m, []);
    // A link loop where a backend folder should be: reading it fails with ELOOP.
    symlinkSync('loop-home', path.join(m.root, 'loop-home'));
    const other = path.join(m.dir, 'srv', 'second', '.watchfire');
    put(path.join(other, 'projects.yaml'), 'version: 1\nprojects: []\n');
    const home = makeHome({ ...m, root: other }, 'codex', { projectName: 'Gone', mode: 'chat' });
    ageAll(m, daysAgo(2));
    backdate(path.join(m.dir, 'srv'), daysAgo(2));

    const { report, exitCode } = await passOver(m, { config: { providers: { watchfire: { root: [m.root, other] } } } });

    expect(exitCode).toBe(1);
    expect(report.providers).toEqual([
      { provider: 'watchfire', root: m.root, ok: false, error: expect.stringMatching(/ELOOP/) },
      { provider: 'watchfire', root: other, ok: true },
    ]);
    expect(itemAt(report, home).verdict).toBe('deleted');
  });
});
