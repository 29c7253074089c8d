import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Report, ReportItem } from '../../../src/model/types.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory, type Entry } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { addUsers, giveTo } from '../../helpers/users.js';
import { kiloPaths, makeKiloDb } from './fixtures.js';
import { ORPHAN_SESSION, opencodeData, perProcessLog, diffJson, type OpencodeData } from './opencode-data.js';
import { runKilo, scene, type Scene } from './scene.js';

const living: ChildProcess[] = [];
afterEach(() => {
  for (const child of living.splice(0)) child.kill('SIGKILL');
});

function opencodeScene(): { s: Scene; d: OpencodeData } {
  const s = scene('opencode');
  return { s, d: opencodeData(s.data, s.repo) };
}

/** The report's items without a path (what is only reported) whose detail names `p`. */
function reportedAbout(report: Report, p: string): ReportItem {
  const found = report.items.find((item) => item.path === null && item.detail.startsWith(`${p}:`));
  if (!found)
    throw new Error(
      `nothing reported about ${p}; the report has: ${report.items.map((i) => `${i.path ?? i.detail.slice(0, 80)} ${i.verdict}`).join(', ')}`,
    );
  return found;
}

/**
 * Asserts that between two inventories of the scene exactly `files` went, and nothing changed but
 * the folders that held them and the files SQLite keeps beside a database it opened.
 */
function expectOnlyFilesGone(s: Scene, before: Map<string, Entry>, files: string[]): void {
  const diff = diffInventories(before, inventory(s.root));
  const gone = files.map((file) => path.relative(s.root, file));
  expect(diff.removed.sort()).toEqual([...gone].sort());
  const folders = new Set(gone.map((key) => path.dirname(key)));
  const sqlite = (key: string) => /\.db-(wal|shm)$/.test(key) || key === path.relative(s.root, s.data);
  expect(diff.changed.filter((key) => !folders.has(key) && !sqlite(key))).toEqual([]);
  expect(diff.added.filter((key) => !sqlite(key))).toEqual([]);
}

/** A process that is not opencode and holds `file` open (descriptor 3 of a sleep). */
async function holdOpen(file: string): Promise<ChildProcess> {
  const child = spawn('sh', ['-c', 'exec 3<"$1"; exec sleep 600', 'sh', file], { stdio: 'ignore' });
  living.push(child);
  await waitFor(() => {
    try {
      return statSync(`/proc/${child.pid}/fd/3`).ino === statSync(file).ino && readComm(child.pid) === 'sleep';
    } catch {
      return false;
    }
  });
  return child;
}

const readComm = (pid: number | undefined) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();

/** A long-lived process with this environment (a shell or an opencode that carries OPENCODE_DB). */
async function livingWith(env: NodeJS.ProcessEnv, cwd: string): Promise<ChildProcess> {
  const child = spawn('sleep', ['600'], { env: { PATH: process.env.PATH, ...env }, cwd, stdio: 'ignore' });
  living.push(child);
  await waitFor(() => {
    try {
      return readComm(child.pid) === 'sleep';
    } catch {
      return false;
    }
  });
  return child;
}

describe("opencode's own retention, applied where opencode fails to", () => {
  it('deletes the per-process logs beyond the ten newest, tool outputs past seven days and the diffs of deleted sessions, each alone, and reports the rest', async () => {
    const { s, d } = opencodeScene();
    const before = inventory(s.root);

    const dry = await runKilo(s, { reportOnly: true });
    expect(diffInventories(before, inventory(s.root)).removed).toEqual([]);
    const dead = [...d.perProcessLogs.slice(0, 2), ...d.oldToolOutputs, d.orphanDiff];
    for (const file of dead) expect(itemAt(dry.report, file).verdict).toBe('would-delete');

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expectOnlyFilesGone(s, before, dead);
    for (const file of d.perProcessLogs.slice(0, 2))
      expect(itemAt(report, file)).toMatchObject({
        kind: 'owner-retention',
        verdict: 'deleted',
        reason: 'opencode-log-rotated',
        bytes: statSize(before, s, file),
      });
    expect(itemAt(report, d.perProcessLogs[0] as string).detail).toContain(
      `the newest is ${path.basename(d.perProcessLogs[11] as string)}`,
    );
    for (const file of d.oldToolOutputs)
      expect(itemAt(report, file)).toMatchObject({ verdict: 'deleted', reason: 'opencode-tool-output-expired' });
    expect(itemAt(report, d.orphanDiff)).toMatchObject({ verdict: 'deleted', reason: 'opencode-diff-orphaned' });
    expect(itemAt(report, d.orphanDiff).detail).toContain(
      `session ${ORPHAN_SESSION}, which no database has (opencode.db)`,
    );

    // What no rule of opencode's lets go is reported, with its size and whoever holds it.
    for (const file of [d.opencodeLog, d.heapSnapshot, d.direct, ...d.perProcessLogs.slice(2)])
      expect(reportedAbout(report, file)).toMatchObject({
        kind: 'owner-retention',
        verdict: 'kept',
        reason: 'opencode-log-reported',
      });
    expect(reportedAbout(report, d.opencodeLog).detail).toMatch(
      /: \d+ B, no process holds it; opencode \(since 1\.18\.33\) appends/,
    );
    expect(reportedAbout(report, d.direct).detail).toContain('2 entries');
    expect(reportedAbout(report, path.dirname(d.youngToolOutput))).toMatchObject({
      verdict: 'kept',
      reason: 'opencode-tool-output-retained',
    });
    expect(reportedAbout(report, path.dirname(d.orphanDiff)).detail).toMatch(
      /the file diffs of 3 sessions opencode still has/,
    );

    // A second pass finds nothing more to do.
    const again = await runKilo(s);
    expect(again.report.items.filter((item) => item.verdict === 'deleted')).toEqual([]);
  });

  it('keeps the ten newest per-process logs whatever their age, and reads their rank from their names, not their times', async () => {
    const s = scene('opencode');
    const log = path.join(s.data, 'log');
    const logs = Array.from({ length: 11 }, (_, k) => perProcessLog(log, new Date(Date.UTC(2025, 0, 1 + k))));
    backdate(s.data, daysAgo(30));
    // The newest by name was written long before the oldest by name: the name (the start time) decides.
    backdate(logs[10] as string, daysAgo(400));
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    expectOnlyFilesGone(s, before, [logs[0] as string]);
    expect(reportedAbout(report, logs[10] as string).reason).toBe('opencode-log-reported');
  });

  it('refuses a file a live process holds open, running or stopped (SIGSTOP), and names the holder of a reported log', async () => {
    const { s, d } = opencodeScene();
    const running = await holdOpen(d.orphanDiff);
    const stopped = await holdOpen(d.oldToolOutputs[0] as string);
    process.kill(stopped.pid as number, 'SIGSTOP');
    const writer = await holdOpen(d.opencodeLog);
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    for (const [file, holder] of [
      [d.orphanDiff, running],
      [d.oldToolOutputs[0] as string, stopped],
    ] as const) {
      const item = itemAt(report, file);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(item.detail).toContain(`process ${holder.pid} (sleep 600`);
      expect(existsSync(file)).toBe(true);
    }
    expect(reportedAbout(report, d.opencodeLog).detail).toContain(`held by process ${writer.pid} (sleep 600`);
    expectOnlyFilesGone(s, before, [...d.perProcessLogs.slice(0, 2), d.oldToolOutputs[1] as string]);
  });

  it('refuses the diff of a session no database has while the database cannot be read, has no session table, or is not there', async () => {
    for (const broken of ['garbage', 'no session table', 'none'] as const) {
      const { s, d } = opencodeScene();
      const db = path.join(s.data, 'opencode.db');
      if (broken === 'garbage') writeFileSync(db, 'not a database, whatever its name says\n');
      if (broken === 'none') renameSync(db, path.join(s.data, 'opencode.db.bak'));
      if (broken === 'no session table') {
        makeKiloDb(path.join(s.data, 'opencode-dev.db'), { projects: [{ id: 'p', worktree: s.repo }] });
        const Database = (await import('better-sqlite3')).default;
        const handle = new Database(path.join(s.data, 'opencode-dev.db'));
        handle.exec('DROP TABLE session');
        handle.close();
      }
      for (const file of ['opencode.db', 'opencode-dev.db'].map((name) => path.join(s.data, name)))
        if (existsSync(file)) backdate(file, daysAgo(10));
      const before = inventory(s.root);

      const { report } = await runKilo(s);

      const orphan = itemAt(report, d.orphanDiff);
      expect(`${orphan.verdict} ${orphan.reason}`, broken).toBe('refused owner-unknown');
      expect(orphan.detail, broken).toContain(
        broken === 'garbage'
          ? `the databases cannot be read: ${db}`
          : broken === 'none'
            ? `no opencode database is in ${s.data}`
            : 'opencode-dev.db has no session table with an id column',
      );
      if (broken === 'garbage') {
        // Rule 1: nothing of the data folder goes while its source of truth cannot be read.
        expect(report.providers).toContainEqual(expect.objectContaining({ root: s.data, ok: false }));
        expect(itemAt(report, d.oldToolOutputs[0] as string)).toMatchObject({
          verdict: 'refused',
          reason: 'source-unreadable',
        });
        expect(itemAt(report, d.perProcessLogs[0] as string)).toMatchObject({
          verdict: 'refused',
          reason: 'source-unreadable',
        });
        expect(diffInventories(before, inventory(s.root)).removed).toEqual([]);
      } else expectOnlyFilesGone(s, before, [...d.perProcessLogs.slice(0, 2), ...d.oldToolOutputs]);
    }
  });

  it('refuses the diff of a session no database has while a live process keeps its sessions in another database (OPENCODE_DB)', async () => {
    const { s, d } = opencodeScene();
    const elsewhere = path.join(s.root, 'elsewhere', 'other.db');
    const carrier = await livingWith({ HOME: s.home, OPENCODE_DB: elsewhere }, s.repo);
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    const orphan = itemAt(report, d.orphanDiff);
    expect(orphan).toMatchObject({ verdict: 'refused', reason: 'owner-unknown' });
    expect(orphan.detail).toContain(`process ${carrier.pid} (sleep 600`);
    expect(orphan.detail).toContain(`carries OPENCODE_DB=${elsewhere}, a database this pass did not read`);
    expectOnlyFilesGone(s, before, [...d.perProcessLogs.slice(0, 2), ...d.oldToolOutputs]);
  });

  it('deletes it all the same when that OPENCODE_DB names the database the pass read, or belongs to another data folder', async () => {
    const { s, d } = opencodeScene();
    // Relative to its data folder, as opencode reads it; and through a link to that folder.
    const link = path.join(s.root, 'data-link');
    symlinkSync(s.data, link);
    await livingWith({ HOME: s.home, OPENCODE_DB: 'opencode.db' }, s.repo);
    await livingWith({ HOME: s.home, OPENCODE_DB: path.join(link, 'opencode.db') }, s.repo);
    await livingWith({ HOME: path.join(s.root, 'someone-else'), OPENCODE_DB: ':memory:' }, s.repo);
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    expect(itemAt(report, d.orphanDiff)).toMatchObject({ verdict: 'deleted', reason: 'opencode-diff-orphaned' });
    expectOnlyFilesGone(s, before, [...d.perProcessLogs.slice(0, 2), ...d.oldToolOutputs, d.orphanDiff]);
  });

  it('an OPENCODE_DB of :memory: in this data folder keeps the diffs of sessions no database has', async () => {
    const { s, d } = opencodeScene();
    await livingWith({ HOME: s.home, OPENCODE_DB: ':memory:' }, s.repo);

    const { report } = await runKilo(s);

    expect(itemAt(report, d.orphanDiff)).toMatchObject({ verdict: 'refused', reason: 'owner-unknown' });
    expect(itemAt(report, d.orphanDiff).detail).toContain('its sessions live in memory');
  });

  it('never follows a link: a tool output that is a link, a log folder that is one', async () => {
    const { s, d } = opencodeScene();
    const outside = put(path.join(s.root, 'outside', 'precious.txt'), 'keep me');
    const link = path.join(path.dirname(d.youngToolOutput), 'tool_24dec0b00001Link0000000000');
    symlinkSync(outside, link);
    // The log folder moved elsewhere and linked back: nothing behind the link is judged.
    const log = path.dirname(d.opencodeLog);
    const moved = path.join(s.root, 'moved-log');
    renameSync(log, moved);
    symlinkSync(moved, log);
    backdate(s.root, daysAgo(10));
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    expect(itemAt(report, link)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(reportedAbout(report, log)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(
      report.items.filter((item) => item.path?.startsWith(`${log}${path.sep}`) || item.detail.includes(moved)),
    ).toEqual([]);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expectOnlyFilesGone(s, before, [...d.oldToolOutputs, d.orphanDiff, d.youngToolOutput]);
  });

  it('refuses what was written within minAge, and keeps tool outputs past seven days but within a longer minAge', async () => {
    const { s, d } = opencodeScene();
    const fresh = put(
      path.join(path.dirname(d.orphanDiff), 'ses_24e0000001ffWrittenJustNow00.json'),
      diffJson('a', 'b'),
    );
    const before = inventory(s.root);

    const { report } = await runKilo(s, { config: { minAge: '11d' } });

    expect(itemAt(report, fresh)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    for (const file of [d.orphanDiff, d.perProcessLogs[0] as string])
      expect(itemAt(report, file)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    for (const file of d.oldToolOutputs) expect(report.items.some((item) => item.path === file)).toBe(false);
    expect(reportedAbout(report, path.dirname(d.youngToolOutput)).detail).toMatch(
      /: 3 tool outputs, [^;]*; the oldest written .*, within minAge 11d: it may go after /,
    );
    expectOnlyFilesGone(s, before, []);
  });

  it("run as root over a user's home, deletes as that user, and refuses a file of another uid", async () => {
    const [ana, bob] = addUsers(2);
    if (!ana || !bob) throw new Error('no users');
    const { s, d } = opencodeScene();
    giveTo(s.home, ana);
    const bobs = d.oldToolOutputs[1] as string;
    giveTo(bobs, bob);
    backdate(s.home, daysAgo(10));
    backdate(d.youngToolOutput, daysAgo(2));
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    expect(itemAt(report, bobs)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(itemAt(report, d.oldToolOutputs[0] as string).verdict).toBe('deleted');
    expectOnlyFilesGone(s, before, [...d.perProcessLogs.slice(0, 2), d.oldToolOutputs[0] as string, d.orphanDiff]);
  });
});

describe("Kilo Code's logs, tool outputs and session diffs", () => {
  it('are reported with their size and never deleted: its retention is not verified', async () => {
    const s = scene('kilo');
    const d = opencodeData(s.data, s.repo);
    const before = inventory(s.root);

    const { report } = await runKilo(s);

    expect(diffInventories(before, inventory(s.root)).removed).toEqual([]);
    for (const folder of [path.dirname(d.opencodeLog), path.dirname(d.youngToolOutput), path.dirname(d.orphanDiff)]) {
      const item = reportedAbout(report, folder);
      expect(item).toMatchObject({ kind: 'owner-retention', verdict: 'kept', reason: 'kilo-retention-unverified' });
      expect(item.detail).toContain("Kilo Code's");
    }
    expect(report.items.filter((item) => item.kind === 'owner-retention' && item.path !== null)).toEqual([]);
  });

  it('a kilo data folder beside an opencode one in the same home changes nothing of opencode’s judgement', async () => {
    const s = scene('opencode');
    const d = opencodeData(s.data, s.repo);
    const kilo = kiloPaths(s.home, 'kilo');
    mkdirSync(path.join(kilo.data, 'tool-output'), { recursive: true });
    backdate(s.home, daysAgo(10));
    backdate(d.youngToolOutput, daysAgo(2));
    const before = inventory(s.root);

    await runKilo(s);

    expectOnlyFilesGone(s, before, [...d.perProcessLogs.slice(0, 2), ...d.oldToolOutputs, d.orphanDiff]);
  });
});

function statSize(before: Map<string, Entry>, s: Scene, file: string): number {
  return before.get(path.relative(s.root, file))?.size ?? -1;
}
