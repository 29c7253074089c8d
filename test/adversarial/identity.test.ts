import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, openSync, closeSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../src/provider-api/provider.js';
import type { Report } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { spawnLiving } from '../helpers/processes.js';
import { scratchPass, scratchProvider } from '../helpers/scratch-provider.js';
import { tempDir } from '../helpers/temp.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { bindOnHost, ended, inMountNamespace, quoted, runningAs, unmountOnHost } from './support/namespaces.js';
import { meddling, raceProvider, type RaceTarget } from './support/race-provider.js';
import { runArgs, world } from './support/watchfire-world.js';

/**
 * Rule 12: a process is inside an item when it holds the same file (device and inode) as an entry
 * of it, however it reaches it (a bind mount, another mount namespace, a renamed parent), or when
 * its path names the item (a deleted file still open there). Real processes, real mounts: each
 * `unshare --mount` namespace is private, and its mounts die with its process.
 */

/** A root with dead folders `first` and `second`, an outside folder, and an empty `view` to mount on. */
function scene() {
  const dir = tempDir('aj-identity-');
  const root = path.join(dir, 'root');
  const first = path.join(root, 'first');
  const second = path.join(root, 'second');
  const view = path.join(dir, 'view');
  put(path.join(first, 'notes.md'), 'first\n');
  put(path.join(second, 'transcript.jsonl'), '{"turn":1}\n{"turn":2}\n');
  put(path.join(second, 'nested', 'deep.txt'), 'deep\n');
  put(path.join(dir, 'outside', 'secret.txt'), 'must survive\n');
  mkdirSync(view);
  const reportDir = path.join(dir, 'report');
  const s = {
    dir,
    root,
    first,
    second,
    view,
    reportDir,
    /** `p` as the namespace that mounts `dir` at `view` sees it. */
    seen: (p: string) => path.join(view, path.relative(dir, p)),
    age: () => backdate(root, daysAgo(3)),
    snapshot: () => inventory(dir, { exclude: [reportDir, view] }),
    key: (p: string) => path.relative(dir, p),
    pass: (onPlanned?: () => Promise<void>) =>
      scratchPass({ provider: scratchProvider({ root }), reportDir, ...(onPlanned ? { onPlanned } : {}) }),
  };
  s.age();
  return s;
}

type Scene = ReturnType<typeof scene>;

/** The item is refused as in use naming `pid` (or the mount), nothing in the scene changed but `first`. */
async function expectKept(s: Scene, expectedDetail: RegExp | string): Promise<void> {
  const before = s.snapshot();
  const { report } = await s.pass();
  const item = itemAt(report, s.second);
  expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
  // Refused by the plan itself, not only by the last look before the delete.
  expect(item.detail).not.toMatch(/(after|since) it was judged/);
  if (typeof expectedDetail === 'string') expect(item.detail).toContain(expectedDetail);
  else expect(item.detail).toMatch(expectedDetail);
  expect(itemAt(report, s.first).verdict).toBe('deleted');
  expectOnlyTargetsTouched(before, s.snapshot(), { targets: [s.key(s.first)] });
}

/** Once the process is gone, nothing keeps the item: the next pass deletes it. */
async function expectDeletedOnceGone(s: Scene): Promise<void> {
  const { report } = await s.pass();
  expect(itemAt(report, s.second)).toMatchObject({ verdict: 'deleted' });
  expect(existsSync(s.second)).toBe(false);
}

describe('a process inside an item by identity, unseen by its path', () => {
  afterEach(unmountOnHost);

  it('another mount namespace that mounts an ancestor elsewhere, with its working directory inside', async () => {
    const s = scene();
    const agent = await inMountNamespace(
      `mount --bind ${quoted(s.dir)} ${quoted(s.view)}; cd ${quoted(s.seen(path.join(s.second, 'nested')))}; exec sleep 600`,
      'sleep',
    );
    await expectKept(s, `process ${agent.pid} (sleep 600, run by root) has its working directory`);
    await ended(agent);
    await expectDeletedOnceGone(s);
  });

  it('another mount namespace holding a file of it open through a mount, its working directory elsewhere', async () => {
    const s = scene();
    const agent = await inMountNamespace(
      `mount --bind ${quoted(s.dir)} ${quoted(s.view)}; cd /; exec sleep 600 3< ${quoted(s.seen(path.join(s.second, 'transcript.jsonl')))}`,
      'sleep',
    );
    await expectKept(s, `process ${agent.pid}`);
    await ended(agent);
    await expectDeletedOnceGone(s);
  });

  it('another mount namespace running a program mapped from inside it, reached through a mount', async () => {
    const s = scene();
    const binary = path.join(s.second, 'agent-binary');
    copyFileSync('/bin/sleep', binary);
    chmodSync(binary, 0o755);
    s.age();
    // exec maps the program and keeps no descriptor of it: only /proc/<pid>/maps shows it.
    const agent = await inMountNamespace(
      `mount --bind ${quoted(s.dir)} ${quoted(s.view)}; cd /; exec ${quoted(s.seen(binary))} 600`,
      'agent-binary',
    );
    await expectKept(s, `process ${agent.pid}`);
    await ended(agent);
    await expectDeletedOnceGone(s);
  });

  it('a bind mount of the item in our own namespace, with a process working in it there', async () => {
    const s = scene();
    bindOnHost(s.second, s.view);
    const agent = spawnLiving('sleep', ['600'], { cwd: path.join(s.view, 'nested') });
    await runningAs(agent, 'sleep');
    await expectKept(s, `process ${agent.pid}`);
    unmountOnHost();
    await ended(agent);
    await expectDeletedOnceGone(s);
  });

  it('a parent renamed after the process went in: its path names the old place, its identity the item', async () => {
    const s = scene();
    const before = path.join(s.dir, 'before-rename');
    renameSync(s.root, before);
    const agent = spawnLiving('sleep', ['600'], { cwd: path.join(before, 'second', 'nested') });
    await runningAs(agent, 'sleep');
    // The provider finds the root under its new name only after /proc was read.
    const listing = scratchProvider({ root: s.root });
    const renaming: Provider = {
      name: 'watchfire',
      async gather(ctx) {
        renameSync(before, s.root);
        return listing.gather(ctx);
      },
    };
    const { report } = await scratchPass({ provider: renaming, reportDir: s.reportDir });
    expect(itemAt(report, s.second)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, s.second).detail).toContain(
      `process ${agent.pid} (sleep 600, run by root) has its working directory`,
    );
    expect(existsSync(path.join(s.second, 'transcript.jsonl'))).toBe(true);
    await ended(agent);
    await expectDeletedOnceGone(s);
  });
});

describe('a mount namespace that can enter an item at any time', () => {
  it('has the item bind-mounted elsewhere with no process inside: refused, naming the namespace and the mount', async () => {
    const s = scene();
    const holder = await inMountNamespace(
      `mount --bind ${quoted(s.second)} ${quoted(s.view)}; cd /; exec sleep 600`,
      'sleep',
    );
    await expectKept(
      s,
      new RegExp(
        `^it can be entered at any time through a mount: mount namespace mnt:\\[\\d+\\] \\(process ${holder.pid}\\) has it mounted at ${s.view}`,
      ),
    );
    await ended(holder);
    await expectDeletedOnceGone(s);
  });

  it('has a folder inside the item bind-mounted', async () => {
    const s = scene();
    const holder = await inMountNamespace(
      `mount --bind ${quoted(path.join(s.second, 'nested'))} ${quoted(s.view)}; cd /; exec sleep 600`,
      'sleep',
    );
    await expectKept(s, `has nested inside it mounted at ${s.view}`);
    await ended(holder);
    await expectDeletedOnceGone(s);
  });
});

describe('processCheck: off', () => {
  it('turns the identity and mount checks off with the rest', async () => {
    const s = scene();
    await inMountNamespace(`mount --bind ${quoted(s.second)} ${quoted(s.view)}; cd /; exec sleep 600`, 'sleep');
    const agent = spawnLiving('sleep', ['600'], { cwd: path.join(s.second, 'nested') });
    await runningAs(agent, 'sleep');
    const { report } = await scratchPass({
      provider: scratchProvider({ root: s.root }),
      reportDir: s.reportDir,
      processCheck: 'off',
      reportOnly: true,
    });
    expect(itemAt(report, s.second).verdict).toBe('would-delete');
    expect(report.processCheck).toMatchObject({ mode: 'off', inspected: 0 });
  });
});

describe('a deleted file still open inside an item (the path test)', () => {
  it('is refused while the file is held, and deleted once it is not', async () => {
    const s = scene();
    const transcript = path.join(s.second, 'transcript.jsonl');
    const fd = openSync(transcript, 'r');
    const agent = spawn('sleep', ['600'], { stdio: [fd, 'ignore', 'ignore'], cwd: '/' });
    closeSync(fd);
    try {
      await runningAs(agent, 'sleep');
      unlinkSync(transcript);
      // Its inode is in no folder any more: only the path /proc shows for it names the item.
      s.age();
      await expectKept(s, `process ${agent.pid}`);
    } finally {
      await ended(agent);
    }
    await expectDeletedOnceGone(s);
  });
});

describe('the last look before the delete, by identity and by mount', () => {
  it('a process that enters through another namespace after the plan keeps the item: put back, in use', async () => {
    const s = scene();
    const before = s.snapshot();
    let agent = 0;
    const targets: RaceTarget[] = [
      {
        path: s.first,
        meddle: async () => {
          const child = await inMountNamespace(
            `mount --bind ${quoted(s.dir)} ${quoted(s.view)}; cd ${quoted(s.seen(path.join(s.second, 'nested')))}; exec sleep 600`,
            'sleep',
          );
          agent = child.pid as number;
        },
      },
      { path: s.second },
    ];
    const { report } = await scratchPass({
      provider: raceProvider(s.root, targets),
      reportDir: s.reportDir,
      onPlanned: meddling(targets),
    });
    expect(itemAt(report, s.first).verdict).toBe('deleted');
    const item = itemAt(report, s.second);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`process ${agent} got inside after it was judged`);
    expect(item.detail).toContain('put back where it was');
    expectOnlyTargetsTouched(before, s.snapshot(), { targets: [s.key(s.first)] });
  });

  it('a namespace that mounts the item after the plan keeps it: put back, in use', async () => {
    const s = scene();
    const before = s.snapshot();
    const targets: RaceTarget[] = [
      {
        path: s.first,
        meddle: async () => {
          await inMountNamespace(`mount --bind ${quoted(s.second)} ${quoted(s.view)}; cd /; exec sleep 600`, 'sleep');
        },
      },
      { path: s.second },
    ];
    const { report } = await scratchPass({
      provider: raceProvider(s.root, targets),
      reportDir: s.reportDir,
      onPlanned: meddling(targets),
    });
    const item = itemAt(report, s.second);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toMatch(/since it was judged, mount namespace mnt:\[\d+\] \(process \d+\) has it mounted at/);
    expect(item.detail).toContain('put back where it was');
    expectOnlyTargetsTouched(before, s.snapshot(), { targets: [s.key(s.first)] });
  });
});

describe('through the CLI, where a provider walks its items while it gathers', () => {
  it('a container that mounts the home at /workspace keeps a session home its agent works in', async () => {
    const w = world();
    const home = w.session('gone-project:chat', { 'AGENTS.md': '# prompt\n', 'transcript.jsonl': '{"turn":1}\n' });
    w.age();
    const workspace = path.join(w.dir, 'workspace');
    mkdirSync(workspace);
    const inside = path.join(workspace, path.relative(w.home, home));
    const agent = await inMountNamespace(
      `mount --bind ${quoted(w.home)} ${quoted(workspace)}; cd ${quoted(inside)}; exec sleep 600 3>> ${quoted(path.join(inside, 'transcript.jsonl'))}`,
      'sleep',
    );
    const before = w.snapshot();
    const kept = JSON.parse((await runCli(runArgs(w), { env: w.env })).stdout) as Report;
    expect(itemAt(kept, home)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(kept, home).detail).toContain(
      `process ${agent.pid} (sleep 600, run by root) has its working directory`,
    );
    expect(w.snapshot()).toEqual(before);
    await ended(agent);
    const gone = JSON.parse((await runCli(runArgs(w), { env: w.env })).stdout) as Report;
    expect(itemAt(gone, home).verdict).toBe('deleted');
  });
});
