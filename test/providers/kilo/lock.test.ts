import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { acquireLock, inspectLock, LockBusyError } from '../../../src/providers/kilo/lock.js';
import { gitWrapper } from '../../helpers/git-wrapper.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { put } from '../../helpers/fs-fixtures.js';
import {
  addKiloWorktree,
  lockDirOf,
  makeSnapshot,
  pinOf,
  refExists,
  removeKiloWorktree,
  writeKiloLock,
} from './fixtures.js';
import { expectOnlyRemoved, runKilo, scene, snapshotOf } from './scene.js';

const WAITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lock-waiter.mjs');
const log = pino({ level: 'silent' });

function backdateLock(lockDir: string, when: Date): void {
  for (const entry of ['heartbeat', 'meta.json', '']) utimesSync(path.join(lockDir, entry), when, when);
}

describe("Kilo's snapshot lock", () => {
  it('refuses a repository whose lock has a fresh heartbeat, and leaves the lock alone', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    const lockDir = lockDirOf(s.state, repo);
    writeKiloLock(lockDir, new Date());
    const before = snapshotOf(s);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    const item = itemAt(report, repo);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(item.detail).toContain('pid 4242');
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
    expect(refExists(s.repo, pinOf(repo))).toBe(true);
  });

  it('takes over a stale lock through the breaker, deletes, and leaves no lock or breaker behind', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    const lockDir = lockDirOf(s.state, repo);
    writeKiloLock(lockDir, new Date(Date.now() - 120_000));
    backdateLock(lockDir, new Date(Date.now() - 120_000));
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, repo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(existsSync(lockDir)).toBe(false);
    expect(existsSync(`${lockDir}.breaker`)).toBe(false);
    expectOnlyRemoved(s, before, snapshotOf(s), [repo]);
  });

  it('holds the lock for the whole deletion: a second process running the waiter side waits for it', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'big');
    // Enough loose objects that the removal takes a moment.
    for (let i = 0; i < 1500; i += 1) put(path.join(gone, 'gen', `f${i}.txt`), `file ${i}\n`);
    const repo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    const lockDir = lockDirOf(s.state, repo);
    const result = path.join(s.work, 'waiter.json');
    const ready = path.join(s.work, 'waiter.ready');
    const waiter = spawn(process.execPath, [WAITER, lockDir, repo, result, ready], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => waiter.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => existsSync(ready));

      const { report } = await runKilo(s);

      expect(itemAt(report, repo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
      expect(await exited).toBe(0);
    } finally {
      waiter.kill('SIGKILL');
    }
    const seen = JSON.parse(readFileSync(result, 'utf8')) as {
      holders: Array<{ pid: number; hostname: string; token: string }>;
      heldChecks: number;
      acquired: boolean;
      gitdirWhenAcquired: boolean;
      sawStale?: boolean;
    };
    // It found the lock held by this pass (live heartbeat, our pid), waited, and got it only once
    // the repository and its pin were gone.
    expect(seen.heldChecks).toBeGreaterThan(0);
    expect(seen.holders.map((holder) => holder.pid)).toEqual([process.pid]);
    expect(seen.holders[0]?.hostname).toBe(os.hostname());
    expect(seen.sawStale).toBeUndefined();
    expect(seen.acquired).toBe(true);
    expect(seen.gitdirWhenAcquired).toBe(false);
    expect(refExists(s.repo, pinOf(repo))).toBe(false);
    expect(existsSync(lockDir)).toBe(false);
  });

  it('leaves the repository alone when its heartbeat went stale while the lock was held', async () => {
    const s = scene();
    const gone = addKiloWorktree(s.repo, 'gone');
    const repo = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, gone);
    const lockDir = lockDirOf(s.state, repo);
    // Every git run while the lock is ours ages its heartbeat by 50 s: a heartbeat thread that
    // stopped, or was held up, while the repository was judged again under the lock.
    const bin = gitWrapper(
      s.work,
      `[ -f '${path.join(lockDir, 'heartbeat')}' ] && touch -d '50 seconds ago' '${path.join(lockDir, 'heartbeat')}'`,
    );
    const before = snapshotOf(s);

    const { report } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => runKilo(s));

    const item = itemAt(report, repo);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(item.detail).toMatch(/the snapshot lock .* has a heartbeat 5\ds old: .*left alone/);
    expect(existsSync(repo)).toBe(true);
    expect(refExists(s.repo, pinOf(repo))).toBe(true);
    // Released as ours; nothing else changed.
    expect(existsSync(lockDir)).toBe(false);
    expectOnlyRemoved(s, before, snapshotOf(s), []);
  });

  it('is proven still ours, and fresh, just before the removal', async () => {
    const dir = tempDir();
    const lockDir = path.join(dir, 'locks', 'mine.lock');
    // No beat falls within this test.
    const held = await acquireLock(lockDir, { owner: null, log, heartbeatMs: 60_000 });
    const heartbeat = path.join(lockDir, 'heartbeat');
    const metaFile = path.join(lockDir, 'meta.json');
    const meta = readFileSync(metaFile, 'utf8');
    expect(() => held.assertHeld()).not.toThrow();

    // One beat missed is still fresh enough; two are not.
    utimesSync(heartbeat, new Date(Date.now() - 35_000), new Date(Date.now() - 35_000));
    expect(() => held.assertHeld()).not.toThrow();
    utimesSync(heartbeat, new Date(Date.now() - 45_000), new Date(Date.now() - 45_000));
    expect(() => held.assertHeld()).toThrow(/has a heartbeat 45s old/);

    utimesSync(heartbeat, new Date(), new Date());
    writeFileSync(metaFile, JSON.stringify({ ...JSON.parse(meta), token: 'someone-else' }));
    expect(() => held.assertHeld()).toThrow(/no longer carries our token/);
    writeFileSync(metaFile, meta);
    expect(() => held.assertHeld()).not.toThrow();

    rmSync(heartbeat);
    expect(() => held.assertHeld()).toThrow(/lost its heartbeat file/);
    writeFileSync(heartbeat, '');
    await held.release();
    expect(() => held.assertHeld()).toThrow(/already released/);
  });

  it('creates the lock the way Kilo does and releases only its own', async () => {
    const dir = tempDir();
    const lockDir = path.join(dir, 'state', 'locks', 'abc.lock');
    const held = await acquireLock(lockDir, { owner: null, log, heartbeatMs: 100 });
    expect(statSync(lockDir).mode & 0o777).toBe(0o700);
    const meta = JSON.parse(readFileSync(path.join(lockDir, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ token: held.token, pid: process.pid, hostname: os.hostname() });
    expect(Date.parse(meta.createdAt)).not.toBeNaN();
    expect(readFileSync(path.join(lockDir, 'heartbeat'), 'utf8')).toBe('');
    expect((await inspectLock(lockDir, Date.now())).state).toBe('fresh');

    // Another holder finds it busy.
    await expect(acquireLock(lockDir, { owner: null, log, waitMs: 200 })).rejects.toBeInstanceOf(LockBusyError);

    // The heartbeat keeps it fresh while held.
    const old = new Date(Date.now() - 50_000);
    utimesSync(path.join(lockDir, 'heartbeat'), old, old);
    await waitFor(() => Date.now() - statSync(path.join(lockDir, 'heartbeat')).mtimeMs < 5_000, 5_000);

    // Someone who broke it and holds it now keeps it: release leaves a lock whose token is not ours.
    writeFileSync(path.join(lockDir, 'meta.json'), JSON.stringify({ ...meta, token: 'someone-else' }));
    await held.release();
    expect(existsSync(lockDir)).toBe(true);
  });

  it('keeps every held lock fresh from one thread while the main thread is busy, and stops each at its release', async () => {
    const dir = tempDir();
    const threads = () => readdirSync('/proc/self/task').length;
    const first = await acquireLock(path.join(dir, 'locks', 'one.lock'), { owner: null, log, heartbeatMs: 50 });
    await readFile(path.join(first.lockDir, 'meta.json'));
    const withOne = threads();
    const second = await acquireLock(path.join(dir, 'locks', 'two.lock'), { owner: null, log, heartbeatMs: 50 });
    expect(threads()).toBe(withOne);

    const heartbeats = [first, second].map((held) => path.join(held.lockDir, 'heartbeat'));
    const old = new Date(Date.now() - 50_000);
    for (const file of heartbeats) utimesSync(file, old, old);
    // A removal on the main thread: nothing here runs until it ends.
    const blockedAt = Date.now();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
    for (const file of heartbeats) {
      expect(statSync(file).mtimeMs).toBeGreaterThanOrEqual(blockedAt - 1);
      expect(statSync(file).mtimeMs).toBeLessThanOrEqual(Date.now());
    }

    // Once released, a lock's file is never touched again: here a new holder's heartbeat stays old.
    await first.release();
    mkdirSync(first.lockDir);
    writeFileSync(heartbeats[0] as string, '');
    utimesSync(heartbeats[0] as string, old, old);
    utimesSync(heartbeats[1] as string, old, old);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(Math.abs(statSync(heartbeats[0] as string).mtimeMs - old.getTime())).toBeLessThan(1);
    expect(Date.now() - statSync(heartbeats[1] as string).mtimeMs).toBeLessThan(5_000);
    await second.release();
    expect(existsSync(second.lockDir)).toBe(false);
  });

  it('releases its own lock and leaves the folder of locks as Kilo has it', async () => {
    const dir = tempDir();
    const locks = path.join(dir, 'locks');
    mkdirSync(locks, { recursive: true });
    const other = path.join(locks, 'other-kind.lock');
    writeKiloLock(other, new Date());
    const before = inventory(dir, { exclude: [path.join(locks, 'mine.lock')] });
    const held = await acquireLock(path.join(locks, 'mine.lock'), { owner: null, log });
    await held.release();
    expect(existsSync(path.join(locks, 'mine.lock'))).toBe(false);
    const after = inventory(dir);
    expect(diffInventories(before, after).removed).toEqual([]);
    expect(diffInventories(before, after).added).toEqual([]);
  });
});
