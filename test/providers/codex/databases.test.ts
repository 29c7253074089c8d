import { lchownSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { addUsers, type RealUser } from '../../helpers/users.js';
import { committed, contentsOf, killedWriter, sizeOf, startWalProcess } from '../../helpers/wal.js';
import { type CodexWorld, codexWorld, runCodex } from './fixtures.js';

/** Codex's own databases: their logs in every home and sqlite home the provider finds, and its superseded log database. */

const run = (w: CodexWorld, options: Parameters<typeof runCodex>[1] = {}): Promise<PassResult> =>
  runCodex(w, { ...options, config: { reclaim: { walMinBytes: '1MiB' }, ...options.config } });

const verdicts = (result: PassResult, files: readonly string[]): string[] =>
  files.map((file) => {
    const item = itemAt(result.report, file);
    return `${item.verdict} ${item.reason}`;
  });

const SMALL = { rows: 20, bytes: 2000 };

/** `logs_1.sqlite` left by a killed Codex of before the rename, beside the current `logs_2.sqlite`. */
async function supersededLogs(w: CodexWorld, options: { current?: boolean } = {}) {
  const old = path.join(w.codexHome, 'logs_1.sqlite');
  await killedWriter(old, SMALL);
  if (options.current ?? true) new Database(path.join(w.codexHome, 'logs_2.sqlite')).close();
  const files = [`${old}-wal`, `${old}-shm`, old];
  return { old, files };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("Codex's superseded log database (logs_1.sqlite beside logs_2.sqlite)", () => {
  it('is kept while younger than 10 days plus minAge, and deleted after: its log and shared memory first', async () => {
    const w = codexWorld();
    const { old, files } = await supersededLogs(w);
    for (const file of files) backdate(file, daysAgo(9));
    const young = await run(w);
    expect(verdicts(young, files)).toEqual(Array(3).fill('kept log-db-retained'));
    expect(itemAt(young.report, old).kind).toBe('superseded-log-db');
    expect(itemAt(young.report, old).detail).toContain('logs_2.sqlite superseded it');

    // Ten days and half an hour: within minAge (1h) of Codex's own ten days.
    for (const file of files) backdate(file, new Date(Date.now() - 10 * DAY - HOUR / 2));
    expect(verdicts(await run(w), files)).toEqual(Array(3).fill('kept log-db-retained'));

    for (const file of files) backdate(file, daysAgo(11));
    const before = inventory(w.home);
    const dead = await run(w);
    expect(verdicts(dead, files)).toEqual(Array(3).fill('deleted log-db-superseded'));
    expect(diffInventories(before, inventory(w.home))).toEqual({
      removed: ['.codex/logs_1.sqlite', '.codex/logs_1.sqlite-shm', '.codex/logs_1.sqlite-wal'],
      changed: ['.codex'],
      added: [],
    });
    // The database went last, once its log and shared memory were gone.
    const audit = readFileSync(path.join(w.work, 'report', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).path);
    expect(audit.indexOf(old)).toBe(audit.length - 1);
    expect(audit.slice(-3).sort()).toEqual([...files].sort());
  });

  it('is kept where logs_2.sqlite is not beside it: a Codex of before the rename may still write it', async () => {
    const w = codexWorld();
    const { files } = await supersededLogs(w, { current: false });
    for (const file of files) backdate(file, daysAgo(30));
    expect(verdicts(await run(w), files)).toEqual(Array(3).fill('kept log-db-current'));
    for (const file of files) expect(sizeOf(file)).not.toBeNull();
  });

  it('is never deleted while a process has it open', async () => {
    const w = codexWorld();
    const { old, files } = await supersededLogs(w);
    const reader = await startWalProcess(old, 'read');
    for (const file of files) backdate(file, daysAgo(30));
    const result = await run(w);
    expect(verdicts(result, files)).toEqual(Array(3).fill('refused in-use'));
    expect(itemAt(result.report, old).detail).toContain(`process ${reader.pid} (`);
    for (const file of files) expect(sizeOf(file)).not.toBeNull();
  });

  it('keeps the database while its log stays: no SQLite may ever find a log without its database', async () => {
    const [bob] = addUsers(1) as [RealUser];
    const w = codexWorld();
    const { old, files } = await supersededLogs(w);
    lchownSync(`${old}-wal`, bob.uid, bob.gid);
    for (const file of files) backdate(file, daysAgo(30));
    const result = await run(w);
    expect(verdicts(result, files)).toEqual([
      'refused foreign-owner',
      'deleted log-db-superseded',
      'refused log-db-wal-remains',
    ]);
    expect(itemAt(result.report, old).detail).toContain(`${old}-wal is still there`);
    expect(sizeOf(old)).not.toBeNull();
    expect(sizeOf(`${old}-wal`)).not.toBeNull();
  });
});

describe("Codex's databases, wherever a home the pass finds keeps them", () => {
  it("checkpoints the logs in the sqlite home a live Codex process's environment names", async () => {
    const w = codexWorld();
    const profile = path.join(w.root, 'profile');
    const sqliteHome = path.join(w.root, 'sqlite');
    mkdirSync(profile);
    mkdirSync(sqliteHome);
    const db = path.join(sqliteHome, 'memories_v2_1.sqlite');
    await killedWriter(db);
    const walBytes = sizeOf(`${db}-wal`) as number;
    // Not read without it: no home of the pass names this folder.
    expect((await run(w, { config: { minAge: '0s' } })).report.items.map((item) => item.path)).not.toContain(
      `${db}-wal`,
    );
    // A shell the work profile was started from: its environment names both.
    const profiled = spawnLiving('env', [`CODEX_HOME=${profile}`, `CODEX_SQLITE_HOME=${sqliteHome}`, 'sleep', '600']);
    await waitFor(() => readFileSync(`/proc/${profiled.pid}/cmdline`, 'utf8').startsWith('sleep'));
    const result = await run(w, { config: { minAge: '0s' } });
    const item = itemAt(result.report, `${db}-wal`);
    expect(`${item.verdict} ${item.reason}`).toBe('deleted wal-left-behind');
    expect(item.bytes).toBe(walBytes);
    expect(contentsOf(db)).toEqual(committed());
  });
});
