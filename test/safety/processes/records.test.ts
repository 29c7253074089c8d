import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ownPidDomain, processStart } from '../../../src/safety/processes/process-start.js';
import { traceProcesses } from '../../../src/safety/processes/traces.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

const started: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

describe('the trace of environments and open files', () => {
  it('finds the variables a process carries, its working directory and open files inside a folder, deleted ones with their size', async () => {
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
    const mine = () =>
      traceProcesses({ vars: ['AJ_TRACE_ME'], under: [inside] }).find((trace) => trace.pid === child.pid);
    await waitFor(() => mine()?.vars?.AJ_TRACE_ME === 'yes');

    const trace = mine();
    expect(trace).toMatchObject({ uid: process.getuid?.(), vars: { AJ_TRACE_ME: 'yes' } });
    expect(trace?.start).toBe((processStart(child.pid as number) as { start: string }).start);
    const held = Object.fromEntries((trace?.held ?? []).map((each) => [each.fd, each]));
    expect(held.cwd).toMatchObject({ path: inside, deleted: false });
    expect(held['1']).toMatchObject({ path: kept, deleted: false, bytes: 3 });
    expect(held['2']).toMatchObject({ path: gone, deleted: true, bytes: 5000 });
    // Not inside the folder asked about, and carrying nothing asked about: not in the trace.
    expect(
      traceProcesses({ vars: ['AJ_NOBODY'], under: [path.join(base, 'elsewhere')] }).map((t) => t.pid),
    ).not.toContain(child.pid);
  });

  it('tells a running pid from a gone one, and names this pass’s pid domain', () => {
    expect(processStart(process.pid)).toMatchObject({ state: 'running', start: expect.stringMatching(/^\d+$/) });
    expect(processStart(2 ** 30)).toEqual({ state: 'gone' });
    expect(ownPidDomain()).toMatch(/^linux:[0-9a-f]{32}:pid:\[\d+\]$/);
  });
});
