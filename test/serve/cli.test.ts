import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CLI, runCli } from '../helpers/cli.js';
import { put, backdate, daysAgo } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { waitFor } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import { parseExposition, sampleValue } from '../metrics/exposition.js';
import { getJson, get, metricsOf } from './harness.js';

const SLOW_SERVE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'slow-serve.mjs');

interface Served {
  child: ChildProcess;
  url: string;
  log: () => Array<Record<string, unknown>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts a serve process and waits for its "listening" log line, which names the real port. */
async function startServeProcess(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (stderr += `STDOUT ${chunk.toString()}`));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const log = () =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  let address = '';
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
    address = String(log().find((line) => line.msg === 'listening')?.address ?? '');
    return address !== '';
  }, 15_000);
  return { child, url: `http://${address}`, log, exit };
}

describe('agent-janitor serve (the CLI)', () => {
  it('runs on its schedule, answers /metrics, /healthz and /report, writes the textfile, and exits 0 on SIGTERM', async () => {
    const dir = tempDir('aj-serve-cli-');
    const config = path.join(dir, 'agent-janitor.yaml');
    const textfile = path.join(dir, 'textfile', 'agent_janitor.prom');
    writeFileSync(
      config,
      stringify({
        homes: [path.join(dir, 'home')],
        reportDir: path.join(dir, 'report'),
        metrics: { textfile },
        serve: { schedule: '* * * * * *', listen: '0.0.0.0:1' },
      }),
    );
    const served = await startServeProcess([CLI, 'serve', '--config', config, '--listen', '127.0.0.1:0']);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(
      async () =>
        (sampleValue(await metricsOf(served.url), 'agent_janitor_runs_total', { result: 'success' }) ?? 0) >= 2,
      15_000,
    );

    const health = await getJson(`${served.url}/healthz`);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', scheduleIntervalSeconds: 1 } });
    const report = await get(`${served.url}/report`);
    expect(report.status).toBe(200);
    expect(JSON.parse(report.text)).toMatchObject({ schemaVersion: 1, tool: { name: 'agent-janitor' } });
    const samples = await metricsOf(served.url);
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeGreaterThan(
      Date.now() / 1000 - 30,
    );
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(
      sampleValue(parseExposition(readFileSync(textfile, 'utf8')), 'agent_janitor_last_run_timestamp_seconds'),
    ).toBeGreaterThan(0);

    served.child.kill('SIGTERM');
    expect(await served.exit).toEqual({ code: 0, signal: null });
    expect(served.log().map((line) => line.msg)).toContain('stopped');
    // Whatever the last pass was, it ran to its end: the report on disk is whole.
    expect(JSON.parse(readFileSync(path.join(dir, 'report', 'report.json'), 'utf8'))).toMatchObject({
      schemaVersion: 1,
    });
  });

  it('SIGTERM in the middle of a pass lets the pass finish, then exits 0', async () => {
    const dir = tempDir('aj-serve-term-');
    const root = path.join(dir, 'home', '.watchfire');
    put(path.join(root, 'dead-a', 'log.jsonl'), 'x'.repeat(100));
    put(path.join(root, 'dead-b', 'log.jsonl'), 'y'.repeat(200));
    backdate(root, daysAgo(3));
    const before = inventory(dir, { exclude: [path.join(dir, 'report')] });
    const reportDir = path.join(dir, 'report');
    const served = await startServeProcess([SLOW_SERVE, root, reportDir, '1500']);
    // The first pass is in its slow gather now.
    expect((await getJson(`${served.url}/healthz`)).body).toMatchObject({ passRunning: true, lastPassAt: null });
    served.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    served.child.kill('SIGINT');
    expect(await served.exit).toEqual({ code: 0, signal: null });

    const stopping = served.log().find((line) => line.msg === 'stopping: finishing the pass under way');
    expect(stopping).toMatchObject({ signal: 'SIGTERM', passRunning: true });
    expect(served.log().map((line) => line.msg)).toContain('already stopping; the pass under way is being finished');
    const report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as {
      totals: { deleted: number; reclaimedBytes: number };
    };
    expect(report.totals).toMatchObject({ deleted: 2, reclaimedBytes: 300 });
    const changes = diffInventories(before, inventory(dir, { exclude: [reportDir] }));
    expect(changes.removed).toEqual([
      'home/.watchfire/dead-a',
      'home/.watchfire/dead-a/log.jsonl',
      'home/.watchfire/dead-b',
      'home/.watchfire/dead-b/log.jsonl',
    ]);
    expect(changes.added).toEqual([]);
  });

  it('a second stop signal after serve has stopped is ignored too: the exit is still 0', async () => {
    // A container without a PID namespace of its own (podman run --pid=host) is stopped by
    // signalling each of its processes: serve gets SIGTERM from podman, then tini's copy of its own.
    const dir = tempDir('aj-serve-again-');
    const root = path.join(dir, 'home', '.watchfire');
    mkdirSync(root, { recursive: true });
    const served = await startServeProcess([SLOW_SERVE, root, path.join(dir, 'report'), '0', '1000']);
    await waitFor(() => served.log().some((line) => line.msg === 'pass finished'), 15_000);
    served.child.kill('SIGTERM');
    await waitFor(() => served.log().some((line) => line.msg === 'stopped'), 15_000);
    served.child.kill('SIGTERM');
    expect(await served.exit).toEqual({ code: 0, signal: null });
  });

  it('rejects a bad --listen or schedule with exit 2 naming it, and a port in use with exit 1', async () => {
    const dir = tempDir('aj-serve-bad-');
    const badListen = await runCli(['serve', '--listen', 'localhost', '--report-dir', dir]);
    expect(badListen.code).toBe(2);
    expect(badListen.stderr).toContain('--listen: expected HOST:PORT');

    const config = path.join(dir, 'bad.yaml');
    writeFileSync(config, stringify({ serve: { schedule: '61 * * * *' } }));
    const badSchedule = await runCli(['serve', '--config', config, '--report-dir', dir]);
    expect(badSchedule.code).toBe(2);
    expect(badSchedule.stderr).toContain(`${config}: serve.schedule: not a valid cron expression "61 * * * *"`);
    expect(existsSync(path.join(dir, 'report.json'))).toBe(false);

    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = taken.address() as net.AddressInfo;
      const busy = await runCli([
        'serve',
        '--listen',
        `127.0.0.1:${port}`,
        '--report-dir',
        dir,
        '--home',
        path.join(dir, 'home'),
      ]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
    } finally {
      taken.close();
    }
  });
});
