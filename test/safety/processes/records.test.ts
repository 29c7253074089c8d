import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ownPidDomain, processStart } from '../../../src/safety/processes/process-start.js';
import { scanProcesses } from '../../../src/safety/processes/processes.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

const started: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

describe('what the one look at /proc keeps of every process', () => {
  it('keeps the variables asked about, its working directory, and the deleted files it holds open with their size', async () => {
    const base = tempDir();
    const inside = path.join(base, 'inside');
    mkdirSync(inside);
    const kept = path.join(inside, 'kept.output');
    const gone = path.join(inside, 'gone.output');
    writeFileSync(kept, 'abc');
    writeFileSync(gone, 'x'.repeat(5000));
    const [a, b] = [openSync(kept, 'r'), openSync(gone, 'r')];
    const child = spawn('sleep', ['600'], {
      cwd: inside,
      env: { PATH: process.env.PATH, AJ_TRACE_ME: 'yes', OTHER: 'no' },
      stdio: ['ignore', a, b],
    });
    started.push(child);
    closeSync(a);
    closeSync(b);
    rmSync(gone);
    const mine = () => scanProcesses('/proc', undefined, ['AJ_TRACE_ME']).records.get(child.pid as number);
    await waitFor(() => mine()?.vars?.AJ_TRACE_ME === 'yes');

    const record = mine();
    expect(record).toMatchObject({ uid: process.getuid?.(), cwd: inside, vars: { AJ_TRACE_ME: 'yes' } });
    // Only the variables asked about are kept.
    expect(Object.keys(record?.vars ?? {})).toEqual(['AJ_TRACE_ME']);
    expect(record?.argv).toEqual(['sleep', '600']);
    expect(record?.start).toBe((processStart(child.pid as number) as { start: string }).start);
    expect(record?.openDeleted).toEqual([expect.objectContaining({ fd: '2', path: gone, bytes: 5000 })]);
    expect(scanProcesses('/proc').records.get(child.pid as number)?.vars).toEqual({});
  });

  it('keeps a stopped process, and its state says so', async () => {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    started.push(child);
    await waitFor(() => scanProcesses().records.has(child.pid as number));
    child.kill('SIGSTOP');
    await waitFor(() => scanProcesses().records.get(child.pid as number)?.state === 'T');
    expect(processStart(child.pid as number).state).toBe('running');
  });

  it('tells a running pid from a gone one, and names this pass’s pid domain', () => {
    expect(processStart(process.pid)).toMatchObject({ state: 'running', start: expect.stringMatching(/^\d+$/) });
    expect(processStart(2 ** 30)).toEqual({ state: 'gone' });
    expect(ownPidDomain()).toMatch(/^linux:[0-9a-f]{32}:pid:\[\d+\]$/);
  });
});
