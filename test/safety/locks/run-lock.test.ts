import { describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/model/errors.js';
import { acquireRunLock } from '../../../src/safety/locks/run-lock.js';
import { tempDir } from '../../helpers/temp.js';
import { holdRunLock } from '../../helpers/lock-holder.js';

describe('the run lock', () => {
  it('lets one holder in at a time and frees up on release', async () => {
    const dir = tempDir();
    const first = await acquireRunLock(dir);
    await expect(acquireRunLock(dir)).rejects.toBeInstanceOf(LockHeldError);
    first.release();
    const second = await acquireRunLock(dir);
    second.release();
  });

  it('is held against another process, and dies with a holder killed by SIGKILL', async () => {
    const dir = tempDir();
    const holder = await holdRunLock(dir);
    await expect(acquireRunLock(dir)).rejects.toThrow(/another agent-janitor pass holds .*run\.lock/);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.on('exit', resolve));
    const after = await acquireRunLock(dir);
    after.release();
  });
});
