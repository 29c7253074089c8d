import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLockTable, takeFlocks } from '../../../src/safety/locks/flock.js';
import { tempDir } from '../../helpers/temp.js';
import { holdLock, lockedNow } from '../../helpers/locks.js';

/** Whether another process could take the lock now (util-linux flock, without waiting). */
const freeForOthers = (file: string) =>
  spawnSync('flock', ['--nonblock', '--conflict-exit-code', '75', file, 'true']).status === 0;

function lockFiles(count: number): string[] {
  const dir = tempDir('aj-flock-');
  return Array.from({ length: count }, (_, k) => {
    const file = path.join(dir, `${k}.lock`);
    writeFileSync(file, '');
    return file;
  });
}

describe('flocks of another tool, held by the pass', () => {
  it('holds every lock with its own descriptor once the flock child has exited, and lets go on release', async () => {
    const [first, second] = lockFiles(2) as [string, string];

    const attempt = await takeFlocks([first, second]);

    if (!('held' in attempt)) throw new Error(`busy: ${attempt.busy}`);
    expect(freeForOthers(first)).toBe(false);
    expect(freeForOthers(second)).toBe(false);
    expect(lockedNow(first)).toBe(true);
    attempt.held.assertStillLocked();
    attempt.held.release();
    expect(freeForOthers(first)).toBe(true);
    expect(freeForOthers(second)).toBe(true);
  });

  it('takes none when one is held elsewhere, names it, and never waits', async () => {
    const [first, second] = lockFiles(2) as [string, string];
    const holder = await holdLock(second);

    const started = Date.now();
    const attempt = await takeFlocks([first, second]);

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(attempt).toMatchObject({ busy: second });
    // The one it took on the way was let go again.
    expect(freeForOthers(first)).toBe(true);
    await holder.release();
  });

  it('never creates a lock file: one that is not there is skipped, and said so', async () => {
    const [present] = lockFiles(1) as [string];
    const missing = path.join(path.dirname(present), 'missing.lock');

    const attempt = await takeFlocks([missing, present]);

    expect(attempt.missing).toEqual([missing]);
    expect(existsSync(missing)).toBe(false);
    if ('held' in attempt) attempt.held.release();
  });

  it('refuses a lock file that is a link (never opened through one)', async () => {
    const [target] = lockFiles(1) as [string];
    const link = path.join(path.dirname(target), 'link.lock');
    symlinkSync(target, link);

    await expect(takeFlocks([link])).rejects.toThrow(/ELOOP|symbolic link/);
  });

  it('says when a held lock file was replaced, so the removal it guards stops', async () => {
    const [file] = lockFiles(1) as [string];
    const attempt = await takeFlocks([file]);
    if (!('held' in attempt)) throw new Error('busy');
    renameSync(file, `${file}.old`);
    writeFileSync(file, '');

    expect(() => attempt.held.assertStillLocked()).toThrow(/was replaced while its lock was held here/);
    attempt.held.release();
  });

  it('reads who holds what from /proc/locks without taking anything', async () => {
    const [held, free] = lockFiles(2) as [string, string];
    const holder = await holdLock(held);

    const table = readLockTable();

    expect(table.isLocked(held)).toBe(true);
    expect(table.isLocked(free)).toBe(false);
    expect(table.isLocked(path.join(path.dirname(free), 'none'))).toBe(false);
    expect(freeForOthers(free)).toBe(true);
    expect(readLockTable(tempDir('aj-no-proc-')).isLocked(held)).toBeNull();
    await holder.release();
  });
});
