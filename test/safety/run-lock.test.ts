import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockHeldError } from '../../src/core/errors.js';
import { acquireRunLock } from '../../src/safety/run-lock.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/processes.js';

/** A real second process that takes the run lock and reports when it holds it. */
function holderProcess(reportDir: string) {
  const script = `import('${path.resolve('dist/safety/run-lock.js')}').then(async (m) => { await m.acquireRunLock(${JSON.stringify(reportDir)}); process.stdout.write('held\\n'); setInterval(() => {}, 1000); })`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let held = false;
  child.stdout.on('data', (chunk: Buffer) => { if (chunk.toString().includes('held')) held = true; });
  return { child, isHolding: () => held };
}

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
    const holder = holderProcess(dir);
    await waitFor(holder.isHolding);
    await expect(acquireRunLock(dir)).rejects.toThrow(/another agent-janitor pass holds .*run\.lock/);
    holder.child.kill('SIGKILL');
    await new Promise((resolve) => holder.child.on('exit', resolve));
    const after = await acquireRunLock(dir);
    after.release();
  });
});
