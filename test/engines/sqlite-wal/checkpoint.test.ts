import { type ChildProcess, execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { NOT_LOCAL_FILESYSTEMS } from '../../../src/safety/wal/filesystems.js';
import { backdate } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import {
  committed,
  contentsOf,
  killedWriter,
  killHard,
  SOME_ROWS,
  sizeOf,
  startWalProcess,
} from '../../helpers/wal.js';
import { type CodexWorld, codexWorld, runCodex } from '../../providers/codex/fixtures.js';

/**
 * The lossless reclaim of a SQLite write-ahead log (SYSTEMS.md 9.2), through the codex provider,
 * on real databases in WAL mode whose writer (a process of SQLite's own, test/helpers/wal-writer.mjs)
 * committed a large log over a small database and was then killed, or still runs.
 */

const run = (w: CodexWorld, options: Parameters<typeof runCodex>[1] = {}): Promise<PassResult> =>
  runCodex(w, { ...options, config: { minAge: '0s', reclaim: { walMinBytes: '1MiB' }, ...options.config } });

/** `<CODEX_HOME>/<name>`, one of Codex's databases. */
const database = (w: CodexWorld, name = 'logs_2.sqlite'): string => path.join(w.codexHome, name);

/**
 * A process that holds an exclusive flock on `file` until it is killed (util-linux flock, its
 * command started without the lock's descriptor, so that killing it lets the lock go).
 */
async function holdFlock(file: string) {
  const holder = spawnLiving('flock', ['--exclusive', '--close', file, 'sleep', '600']);
  const ino = statSync(file).ino;
  await waitFor(() => readFileSync('/proc/locks', 'utf8').includes(`:${ino} `));
  return holder;
}

const verdict = (result: PassResult, file: string): string => {
  const item = itemAt(result.report, file);
  return `${item.verdict} ${item.reason}`;
};

/** Everything of the home but the files a test looks at itself. */
const everything = (w: CodexWorld) => inventory(w.home);

describe('a log whose writer was killed', () => {
  it('is checkpointed: every committed row is still there, the log is gone, the database whole', async () => {
    const w = codexWorld();
    const db = database(w);
    await killedWriter(db);
    const walBytes = sizeOf(`${db}-wal`) as number;
    const before = sizeOf(db) as number;
    expect(walBytes).toBeGreaterThan(SOME_ROWS.rows * SOME_ROWS.bytes);
    expect(before).toBeLessThan(64 * 1024);
    const untouched = everything(w);

    const result = await run(w);
    const item = itemAt(result.report, `${db}-wal`);
    expect(`${item.verdict} ${item.reason}`).toBe('deleted wal-left-behind');
    expect(item.kind).toBe('wal-checkpoint');
    expect(item.bytes).toBe(walBytes);
    const after = sizeOf(db) as number;
    expect(item.checkpoint).toEqual({ walBefore: walBytes, walAfter: 0, databaseBefore: before, databaseAfter: after });
    // The log's bytes, less the pages it held that moved into the database.
    expect(result.report.totals.reclaimedBytes).toBe(walBytes - (after - before));
    // SQLite's own close, the last connection's, removed the log and the shared memory.
    expect(diffInventories(untouched, everything(w))).toEqual({
      removed: ['.codex/logs_2.sqlite-shm', '.codex/logs_2.sqlite-wal'],
      changed: ['.codex', '.codex/logs_2.sqlite'],
      added: [],
    });
    expect(contentsOf(db)).toEqual(committed());
    const audit = readFileSync(path.join(w.work, 'report', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(JSON.parse(audit.at(-1) as string)).toMatchObject({
      kind: 'wal-checkpoint',
      path: `${db}-wal`,
      bytes: walBytes,
      reason: 'wal-left-behind',
      checkpoint: { walBefore: walBytes, walAfter: 0, databaseBefore: before, databaseAfter: after },
    });

    // Nothing is left to do.
    const again = await run(w);
    expect(again.report.items.filter((each) => each.kind === 'wal-checkpoint')).toEqual([]);
  });

  it('is reported by a report-only pass with the log’s bytes, and nothing is opened or changed', async () => {
    const w = codexWorld();
    const db = database(w);
    await killedWriter(db);
    const walBytes = sizeOf(`${db}-wal`) as number;
    const untouched = everything(w);
    const result = await run(w, { reportOnly: true });
    expect(verdict(result, `${db}-wal`)).toBe('would-delete wal-left-behind');
    expect(itemAt(result.report, `${db}-wal`).bytes).toBe(walBytes);
    expect(result.report.totals.wouldReclaimBytes).toBe(walBytes);
    expect(everything(w)).toEqual(untouched);
    // SQLite sees the same log: the checkpoint would have lost nothing either.
    expect(statSync(`${db}-wal`).size).toBe(walBytes);
  });

  it('below reclaim.walMinBytes, is left as it is, and no item speaks of it', async () => {
    const w = codexWorld();
    const db = database(w);
    await killedWriter(db);
    const result = await run(w, { config: { reclaim: { walMinBytes: '1GiB' } } });
    expect(result.report.items.filter((each) => each.kind === 'wal-checkpoint')).toEqual([]);
    expect(sizeOf(`${db}-wal`)).toBeGreaterThan(0);
  });

  it('written within minAge is too recent; the shared memory counts too, but for a database this tool reads', async () => {
    const w = codexWorld();
    const logs = database(w);
    const state = database(w, 'state_5.sqlite');
    await killedWriter(logs);
    await killedWriter(state);
    const young = await run(w, { config: { minAge: '1h' } });
    expect(verdict(young, `${logs}-wal`)).toBe('refused too-recent');
    expect(verdict(young, `${state}-wal`)).toBe('refused too-recent');

    // Logs two hours old, their shared memory rewritten a minute ago: by a reader of the tool's, or,
    // for the thread database, by this tool's own read of it at every pass, which says nothing.
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const db of [logs, state]) {
      backdate(db, hoursAgo);
      backdate(`${db}-wal`, hoursAgo);
    }
    const result = await run(w, { config: { minAge: '1h' } });
    expect(verdict(result, `${logs}-wal`)).toBe('refused too-recent');
    expect(verdict(result, `${state}-wal`)).toBe('deleted wal-left-behind');
    expect(contentsOf(state)).toEqual(committed());
    backdate(`${logs}-shm`, hoursAgo);
    expect(verdict(await run(w, { config: { minAge: '1h' } }), `${logs}-wal`)).toBe('deleted wal-left-behind');
    expect(contentsOf(logs)).toEqual(committed());
  });
});

describe('a log a process holds', () => {
  it('is refused in-use with its bytes, naming the writer, live or stopped; once it is gone, the checkpoint loses nothing', async () => {
    const w = codexWorld();
    const db = database(w);
    const writer = await startWalProcess(db, 'commit');
    const walBytes = sizeOf(`${db}-wal`) as number;
    const textfile = path.join(w.work, 'metrics.prom');
    const live = await run(w, { config: { metrics: { textfile } } });
    const item = itemAt(live.report, `${db}-wal`);
    expect(`${item.verdict} ${item.reason}`).toBe('refused in-use');
    expect(item.bytes).toBe(walBytes);
    expect(item.detail).toContain(`process ${writer.pid} (`);
    expect(item.detail).toContain('quit or restart them; their last close checkpoints it');
    expect(readFileSync(textfile, 'utf8')).toContain(
      `agent_janitor_held_bytes{provider="codex",kind="wal-checkpoint"} ${walBytes}`,
    );
    expect(sizeOf(`${db}-wal`)).toBe(walBytes);

    // Stopped is alive (rule 26).
    writer.kill('SIGSTOP');
    await waitFor(() => /^T/m.test(readFileSync(`/proc/${writer.pid}/stat`, 'utf8').split(') ')[1] ?? ''));
    const stopped = await run(w);
    expect(verdict(stopped, `${db}-wal`)).toBe('refused in-use');
    expect(itemAt(stopped.report, `${db}-wal`).detail).toContain(`process ${writer.pid} (`);
    expect(sizeOf(`${db}-wal`)).toBe(walBytes);

    await killHard(writer);
    const dead = await run(w);
    expect(verdict(dead, `${db}-wal`)).toBe('deleted wal-left-behind');
    // The row its open transaction held was never committed: it is not there, every other row is.
    expect(contentsOf(db)).toEqual(committed());
  });

  it('is refused in-use while a reader keeps its transaction open, and by SQLite itself where no process shows it', async () => {
    const w = codexWorld();
    const db = database(w);
    await killedWriter(db);
    const reader = await startWalProcess(db, 'read');
    const held = await run(w);
    expect(verdict(held, `${db}-wal`)).toBe('refused in-use');
    expect(itemAt(held.report, `${db}-wal`).detail).toContain(`process ${reader.pid} (`);
    await killHard(reader);

    // A reader the look at /proc cannot show (this very process, which a pass never counts):
    // SQLite answers busy, and nothing else is tried.
    const hidden = new Database(db, { readonly: true, fileMustExist: true });
    const walBytes = sizeOf(`${db}-wal`) as number;
    try {
      hidden.exec('BEGIN');
      hidden.prepare('SELECT count(*) FROM item').get();
      const busy = await run(w);
      const item = itemAt(busy.report, `${db}-wal`);
      expect(`${item.verdict} ${item.reason}`).toBe('refused checkpoint-refused');
      expect(item.detail).toMatch(/SQLite answered \(1, \d+, \d+\) to PRAGMA wal_checkpoint\(TRUNCATE\)/);
      expect(item.detail).toContain('nothing else was tried');
      expect(sizeOf(`${db}-wal`)).toBe(walBytes);
    } finally {
      hidden.exec('COMMIT');
      hidden.close();
    }
    expect(contentsOf(db)).toEqual(committed());
    expect(verdict(await run(w), `${db}-wal`)).toBe('deleted wal-left-behind');
    expect(contentsOf(db)).toEqual(committed());
  });

  it('is refused in-use when a process opens it after the plan: the last look sees it', async () => {
    const w = codexWorld();
    const db = database(w);
    await killedWriter(db);
    const walBytes = sizeOf(`${db}-wal`) as number;
    let reader: Awaited<ReturnType<typeof startWalProcess>> | null = null;
    const result = await run(w, {
      onPlanned: async () => {
        reader = await startWalProcess(db, 'read');
      },
    });
    const item = itemAt(result.report, `${db}-wal`);
    expect(`${item.verdict} ${item.reason}`).toBe('refused in-use');
    expect(item.detail).toContain('after it was judged');
    expect(reader).not.toBeNull();
    expect(sizeOf(`${db}-wal`)).toBe(walBytes);
  });
});

describe("Codex's maintenance lock", () => {
  it('held by another process keeps every log of the sqlite home, at the plan and just before the checkpoint', async () => {
    const w = codexWorld();
    const db = database(w);
    await killedWriter(db);
    const walBytes = sizeOf(`${db}-wal`) as number;
    const lock = path.join(w.codexHome, '.sqlite-maintenance.lock');
    writeFileSync(lock, '');
    const holder = await holdFlock(lock);
    const held = await run(w);
    expect(verdict(held, `${db}-wal`)).toBe('refused in-use');
    expect(itemAt(held.report, `${db}-wal`).detail).toContain(`Codex's maintenance lock ${lock} is held by process`);
    await killHard(holder);

    // Taken by Codex between the plan and the checkpoint: the pass's own flock finds it held.
    let late: ChildProcess | null = null;
    const between = await run(w, {
      onPlanned: async () => {
        late = await holdFlock(lock);
      },
    });
    expect(verdict(between, `${db}-wal`)).toBe('refused in-use');
    expect(itemAt(between.report, `${db}-wal`).detail).toContain(
      'is held by another process just before the checkpoint',
    );
    expect(sizeOf(`${db}-wal`)).toBe(walBytes);
    await killHard(late as unknown as ChildProcess);

    // Free: the pass holds it through the checkpoint, and lets it go after.
    expect(verdict(await run(w), `${db}-wal`)).toBe('deleted wal-left-behind');
    expect(contentsOf(db)).toEqual(committed());
    expect(readFileSync('/proc/locks', 'utf8')).not.toContain(`:${statSync(lock).ino} `);
  });
});

describe('a log that is never opened', () => {
  it('without its database, or beside one that is not in WAL mode or is no SQLite, is an orphan', async () => {
    const w = codexWorld();
    const source = path.join(w.root, 'source.sqlite');
    await killedWriter(source);
    // The log alone: SQLite would make an empty goals_1.sqlite beside it and lose every row.
    const goals = database(w, 'goals_1.sqlite');
    copyFileSync(`${source}-wal`, `${goals}-wal`);
    // A database in rollback-journal mode, with a log beside it.
    const queue = database(w, 'queue_1.sqlite');
    const rollback = new Database(queue);
    rollback.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB)');
    rollback.close();
    copyFileSync(`${source}-wal`, `${queue}-wal`);
    // A file that is no SQLite database (or an encrypted one).
    const memories = database(w, 'memories_1.sqlite');
    writeFileSync(memories, Buffer.alloc(8192, 7));
    copyFileSync(`${source}-wal`, `${memories}-wal`);
    const untouched = everything(w);

    const result = await run(w);
    for (const [db, why] of [
      [goals, 'has no database beside it'],
      [queue, 'is in rollback-journal mode'],
      [memories, 'does not start with the SQLite header'],
    ] as const) {
      const item = itemAt(result.report, `${db}-wal`);
      expect(`${item.verdict} ${item.reason}`, db).toBe('refused orphan-wal');
      expect(item.detail).toContain(why);
      expect(item.bytes).toBe(statSync(`${source}-wal`).size);
    }
    // Never opened: no database made, no shared memory, not a byte changed.
    expect(everything(w)).toEqual(untouched);
  });

  it('through a link, the database’s or the log’s, is refused and nothing it leads to is touched', async () => {
    const w = codexWorld();
    const elsewhere = path.join(w.root, 'elsewhere');
    mkdirSync(elsewhere);
    const real = path.join(elsewhere, 'real.sqlite');
    await killedWriter(real);
    const logs = database(w);
    symlinkSync(real, logs);
    copyFileSync(`${real}-wal`, `${logs}-wal`);
    const goals = database(w, 'goals_1.sqlite');
    copyFileSync(real, goals);
    symlinkSync(`${real}-wal`, `${goals}-wal`);
    const untouched = [everything(w), inventory(elsewhere)];

    const result = await run(w);
    expect(verdict(result, `${logs}-wal`)).toBe('refused symlink');
    expect(itemAt(result.report, `${logs}-wal`).detail).toContain(`${logs} is a symlink`);
    expect(verdict(result, `${goals}-wal`)).toBe('refused symlink');
    expect([everything(w), inventory(elsewhere)]).toEqual(untouched);
  });
});

describe('a log on a file system that is not local', () => {
  const TMPFS = 0x01021994;
  const mounted: string[] = [];
  afterEach(() => {
    NOT_LOCAL_FILESYSTEMS.delete(TMPFS);
    for (const folder of mounted.splice(0)) execFileSync('umount', [folder]);
  });

  it('is refused by its statfs type (tmpfs standing in for NFS), and checkpointed where that type is local', async () => {
    // No NFS server, SMB share or FUSE program is there to mount on a test machine; a tmpfs is, and
    // the check knows file systems by their statfs type alone: tmpfs's is added to the list here.
    const w = codexWorld();
    const share = path.join(w.root, 'share');
    mkdirSync(share);
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', share]);
    mounted.push(share);
    writeFileSync(path.join(w.codexHome, 'config.toml'), `sqlite_home = "${share}"\n`);
    const db = path.join(share, 'logs_2.sqlite');
    await killedWriter(db);
    const walBytes = sizeOf(`${db}-wal`) as number;

    NOT_LOCAL_FILESYSTEMS.set(TMPFS, 'tmpfs, standing in for NFS');
    const remote = await run(w);
    expect(verdict(remote, `${db}-wal`)).toBe('refused remote-filesystem');
    expect(itemAt(remote.report, `${db}-wal`).detail).toContain(
      `${share} is on tmpfs, standing in for NFS (statfs type 0x1021994)`,
    );
    expect(sizeOf(`${db}-wal`)).toBe(walBytes);

    NOT_LOCAL_FILESYSTEMS.delete(TMPFS);
    expect(verdict(await run(w), `${db}-wal`)).toBe('deleted wal-left-behind');
    expect(contentsOf(db)).toEqual(committed());
  });
});

describe('owners', () => {
  /** A world whose home is `owner`'s, reachable by them from `/`. */
  function worldOf(owner: { uid: number; gid: number }): CodexWorld {
    const w = codexWorld();
    chmodSync(w.root, 0o755);
    giveTo(w.home, owner);
    return w;
  }

  it('a log of another uid than the home’s, or a pair of two owners, is refused before anything is opened', async () => {
    const [ana, bob] = addUsers(2) as [RealUser, RealUser];
    const w = worldOf(ana);
    const logs = database(w);
    await killedWriter(logs);
    for (const file of [logs, `${logs}-wal`, `${logs}-shm`]) lchownSync(file, bob.uid, bob.gid);
    const goals = database(w, 'goals_1.sqlite');
    await killedWriter(goals);
    for (const file of [goals, `${goals}-wal`]) lchownSync(file, ana.uid, ana.gid);
    lchownSync(`${goals}-shm`, bob.uid, bob.gid);
    const untouched = everything(w);

    const result = await run(w);
    expect(verdict(result, `${logs}-wal`)).toBe('refused foreign-owner');
    expect(itemAt(result.report, `${logs}-wal`).detail).toContain(`uid ${bob.uid}`);
    expect(verdict(result, `${goals}-wal`)).toBe('refused foreign-owner');
    expect(itemAt(result.report, `${goals}-wal`).detail).toContain('not of one owner');
    expect(everything(w)).toEqual(untouched);
  });

  it('runs as the owner of the log: it writes what they may write, and nothing else', async () => {
    const [ana] = addUsers(1) as [RealUser];
    const w = worldOf(ana);
    const logs = database(w);
    await killedWriter(logs);
    const goals = database(w, 'goals_1.sqlite');
    await killedWriter(goals);
    giveTo(w.codexHome, ana);
    // A database its owner may not write: root could checkpoint it, its owner cannot.
    chmodSync(goals, 0o400);
    const goalsWal = sizeOf(`${goals}-wal`) as number;

    const result = await run(w);
    expect(verdict(result, `${logs}-wal`)).toBe('deleted wal-left-behind');
    expect(contentsOf(logs)).toEqual(committed());
    expect(statSync(logs).uid).toBe(ana.uid);
    const refused = itemAt(result.report, `${goals}-wal`);
    expect(`${refused.verdict} ${refused.reason}`).toBe('refused checkpoint-refused');
    expect(refused.detail).toMatch(/SQLITE_[A-Z_]+/);
    expect(sizeOf(`${goals}-wal`)).toBe(goalsWal);
    expect(contentsOf(goals)).toEqual(committed());
  });
});
