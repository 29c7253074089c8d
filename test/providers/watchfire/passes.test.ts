import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { quarantinedName, quarantineName } from '../../../src/safety/removal/quarantine.js';
import { CLI, collect } from '../../helpers/cli.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { spawnLiving } from '../../helpers/processes.js';
import {
  ageAll,
  configFor,
  daemonLock,
  expectOnlyRemoved,
  expectUnchanged,
  linkCodexConfig,
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
  type Machine,
} from './fixture.js';

/** One root in most states the rule tells apart (a live daemon, by pid). */
function mixedMachine(): { m: Machine; doomed: string[]; all: string[] } {
  const m = machine();
  const running = project('Running');
  const idle = project('Idle');
  writeProjects(m, [running, idle]);
  writeAgents(m, [{ project: running, mode: 'chat' }]);
  daemonLock(m);
  writeDaemon(m, spawnLiving('sleep', ['600']).pid as number);
  writeWatchfireExtras(m, idle);
  const { codex } = userConfig(m);
  const kept = makeHome(m, 'codex', { projectName: 'Running', mode: 'chat' });
  const deleted = makeHome(m, 'codex', { projectName: 'Deleted', mode: 'chat' });
  const exported = makeHome(m, 'opencode', { projectName: 'Idle', mode: 'chat' }, 'opencode-session');
  const unexported = makeHome(m, 'codex', { projectName: 'Idle', mode: 'task', task: { number: 2, title: 'Y' } });
  const failedStart = makeHome(m, 'gemini', { projectName: 'Idle', mode: 'agent' }, 'prompt-only');
  linkCodexConfig(deleted, codex);
  linkCodexConfig(failedStart, codex);
  const quarantine = path.join(m.root, 'codex-home', quarantineName('old:chat'));
  put(path.join(quarantine, 'sessions', 'left.jsonl'), 'half deleted');
  writeSessionLog(m, idle, daysAgo(3));
  ageAll(m, daysAgo(4));
  // Written after the log ended: not covered by it.
  put(path.join(unexported, 'sessions', 'later.jsonl'), 'later');
  backdate(unexported, daysAgo(2));
  backdate(failedStart, daysAgo(2));
  // A deleted project's home that was written a moment ago: too recent to delete.
  const fresh = makeHome(m, 'cursor', { projectName: 'Deleted', mode: 'agent' });
  return {
    m,
    doomed: [deleted, exported, failedStart, quarantine],
    all: [kept, deleted, exported, unexported, failedStart, quarantine, fresh],
  };
}

describe('watchfire: passes', () => {
  it('changes nothing in a report-only pass, and says would-delete where a real pass deletes', async () => {
    const { m, doomed, all } = mixedMachine();
    const before = snapshot(m);

    const dry = await passOver(m, { reportOnly: true });

    expectUnchanged(before, snapshot(m));
    expect(dry.exitCode).toBe(0);
    for (const target of doomed) expect(itemAt(dry.report, target).verdict).toBe('would-delete');
    expect(itemAt(dry.report, doomed[3] as string).kind).toBe('quarantine');

    const real = await passOver(m);
    for (const target of all) {
      const wet = itemAt(real.report, target);
      const planned = itemAt(dry.report, target);
      expect(wet.reason).toBe(planned.reason);
      expect(wet.verdict).toBe(planned.verdict === 'would-delete' ? 'deleted' : planned.verdict);
    }
    expect(real.report.items.map((item) => item.path).sort()).toEqual([...all].sort());
    expectOnlyRemoved(m, before, snapshot(m), doomed);
  });

  it('deletes nothing on a second pass and reports the same kept, refused and unfinished totals', async () => {
    const { m } = mixedMachine();
    const first = await passOver(m);
    expect(first.report.totals.deleted).toBe(4);
    const afterFirst = snapshot(m);

    const second = await passOver(m);

    expectUnchanged(afterFirst, snapshot(m));
    const { kept, refused, unfinished } = first.report.totals;
    expect(second.report.totals).toMatchObject({
      deleted: 0,
      wouldDelete: 0,
      failed: 0,
      reclaimedBytes: 0,
      kept,
      refused,
      unfinished,
    });
    expect({ kept, refused, unfinished }).toEqual({ kept: 1, refused: 1, unfinished: 1 });
  });

  it('finishes a deletion interrupted right after the rename into quarantine, and loses nothing else', async () => {
    const { m, all } = mixedMachine();
    const victim = all[1] as string; // the deleted project's home
    const before = snapshot(m);
    // What a pass killed between the rename and the first unlink leaves behind.
    const quarantine = path.join(path.dirname(victim), quarantineName(path.basename(victim)));
    renameSync(victim, quarantine);

    const { report } = await passOver(m);

    expect(itemAt(report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(report.items.some((item) => item.path === victim)).toBe(false);
    const doomed = [victim, ...all.slice(2).filter((p) => itemAt(report, p).verdict === 'deleted')];
    expectOnlyRemoved(m, before, snapshot(m), doomed);
  });

  it('finishes a half-deleted quarantine at the next pass, aged by its files rather than its emptied folders', async () => {
    const { m, all } = mixedMachine();
    const victim = all[1] as string;
    const before = snapshot(m);
    const quarantine = path.join(path.dirname(victim), quarantineName(path.basename(victim)));
    renameSync(victim, quarantine);
    // The killed delete had emptied one folder: that folder's mtime is now, its files were old.
    rmSync(path.join(quarantine, 'sessions', '2026', '11', '28'), { recursive: true });

    const next = await passOver(m);
    expect(itemAt(next.report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    const doomed = [victim, ...all.slice(2).filter((p) => itemAt(next.report, p).verdict === 'deleted')];
    expectOnlyRemoved(m, before, snapshot(m), doomed);
  });

  it('still refuses a quarantine that something wrote a fresh file into', async () => {
    const { m, all } = mixedMachine();
    const victim = all[1] as string;
    const quarantine = path.join(path.dirname(victim), quarantineName(path.basename(victim)));
    renameSync(victim, quarantine);
    writeFileSync(path.join(quarantine, 'written-after-the-rename.txt'), 'fresh');

    const soon = await passOver(m);
    expect(itemAt(soon.report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'refused',
      reason: 'too-recent',
    });
    expect(readFileSync(path.join(quarantine, 'written-after-the-rename.txt'), 'utf8')).toBe('fresh');

    const later = await passOver(m, { clock: () => new Date(Date.now() + 2 * 3_600_000) });
    expect(itemAt(later.report, quarantine)).toMatchObject({ kind: 'quarantine', verdict: 'deleted' });
    expect(existsSync(quarantine)).toBe(false);
  });

  it('finishes the quarantine of a real CLI pass killed right after its rename', async () => {
    const m = machine();
    writeProjects(m, [project('Keeper')]);
    const victim = makeHome(m, 'codex', { projectName: 'Huge Deleted', mode: 'chat' });
    // Enough entries that the delete after the rename takes far longer than delivering SIGKILL.
    for (let dir = 0; dir < 8; dir += 1) {
      const folder = path.join(victim, 'sessions', String(dir));
      mkdirSync(folder, { recursive: true });
      for (let file = 0; file < 250; file += 1) writeFileSync(path.join(folder, `rollout-${file}.jsonl`), 'x');
    }
    const bystander = makeHome(m, 'codex', { projectName: 'Keeper', mode: 'chat' });
    ageAll(m, daysAgo(3));
    const before = snapshot(m);
    const configFile = path.join(m.runDir, 'agent-janitor.yaml');
    writeFileSync(configFile, stringify(configFor(m)));

    const folder = path.dirname(victim);
    let quarantine: string | null = null;
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--config', configFile, '--only', 'watchfire', '--log-level', 'silent'],
      {
        env: { ...process.env, HOME: m.home },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const watcher = watch(folder, (_event, name) => {
      if (quarantine === null && name && quarantinedName(String(name)) === path.basename(victim)) {
        quarantine = path.join(folder, String(name));
        child.kill('SIGKILL');
      }
    });
    const result = await collect(child, 60_000);
    watcher.close();

    expect(result.signal).toBe('SIGKILL');
    expect(quarantine).not.toBeNull();
    const left = readdirSync(folder);
    expect(left).toContain(path.basename(quarantine as unknown as string));
    expect(left).not.toContain(path.basename(victim));

    // The killed delete may have emptied folders (their mtime is now): the next pass after minAge.
    const next = await passOver(m, { clock: () => new Date(Date.now() + 2 * 3_600_000) });

    expect(itemAt(next.report, quarantine as unknown as string)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
    });
    expect(itemAt(next.report, bystander).verdict).toBe('unfinished');
    expectOnlyRemoved(m, before, snapshot(m), [victim]);
    expect(diffInventories(before, snapshot(m)).removed.length).toBeGreaterThan(2_000);
  });
});
