import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Report } from '../../src/model/types.js';
import { beatKiloLocks } from '../helpers/kilo-heartbeats.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { runCli } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { holdRunLock } from '../helpers/lock-holder.js';
import { tempDir } from '../helpers/temp.js';
import { type Sample, parseExposition, sampleValue, scrape } from './exposition.js';
import { backdate, put } from '../helpers/fs-fixtures.js';
import { itemAt } from '../helpers/pass.js';
import { spawnLiving, waitFor } from '../helpers/processes.js';
import { machine, makeHome, project, writeProjects } from '../providers/watchfire/fixture.js';
import { promtool, startNodeExporter, startPushgateway } from './servers.js';

const DAY = 86_400_000;

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    const both = [mine, value].every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry));
    out[key] = both ? merge(mine as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return out;
}

/** Every provider's demo sandbox, laid out by its own builder, and a config naming it. */
async function sandbox(): Promise<{ root: string; home: string; config: string; reportDir: string }> {
  const root = tempDir('aj-metrics-cli-');
  const home = path.join(root, 'home');
  mkdirSync(home, { recursive: true });
  let extra: Record<string, unknown> = {};
  for (const builder of PROVIDERS.map((provider) => provider.sandbox)) {
    const extras = await builder.build({ root, home, old: new Date(Date.now() - 3 * DAY) });
    if (extras?.config) extra = merge(extra, extras.config);
  }
  const reportDir = path.join(root, 'report');
  const config = path.join(root, 'agent-janitor.yaml');
  writeFileSync(config, stringify(merge({ homes: [home], minAge: '1h', reportDir }, extra)));
  return { root, home, config, reportDir };
}

/** The contract's figures, worked out from a report.json by this test on its own. */
function expectedFromReport(report: Report): Map<string, number> {
  const out = new Map<string, number>();
  const add = (key: string, value: number) => out.set(key, (out.get(key) ?? 0) + value);
  for (const item of report.items) {
    const pk = `provider=${item.provider},kind=${item.kind}`;
    add(`agent_janitor_reclaimed_bytes{${pk}}`, item.verdict === 'deleted' ? item.bytes : 0);
    add(`agent_janitor_scratch_bytes{${pk}}`, item.verdict === 'deleted' ? 0 : item.bytes);
    add(`agent_janitor_reclaimable_bytes{${pk}}`, item.verdict === 'would-delete' ? item.bytes : 0);
    add(`agent_janitor_held_bytes{${pk}}`, item.verdict === 'refused' && item.reason === 'in-use' ? item.bytes : 0);
    add(`agent_janitor_items{${pk},verdict=${item.verdict}}`, 1);
    if (item.verdict === 'refused') add(`agent_janitor_refused_items{${pk},reason=${item.reason}}`, 1);
    if (item.verdict === 'unfinished') add(`agent_janitor_unfinished_items{${pk},reason=${item.reason}}`, 1);
  }
  for (const entry of report.footprint ?? [])
    add(`agent_janitor_footprint_bytes{provider=${entry.provider},category=${entry.category}}`, entry.bytes);
  // Every provider of the pass reads up unless one of its roots failed (a tool absent from the home is no failure).
  for (const provider of PROVIDERS) out.set(`agent_janitor_provider_up{provider=${provider.name}}`, 1);
  for (const root of report.providers) {
    const key = `agent_janitor_provider_up{provider=${root.provider}}`;
    out.set(key, Math.min(out.get(key) ?? 1, root.ok ? 1 : 0));
  }
  return out;
}

/** The served figures in the same shape, zero-valued verdicts and unlabelled fillers left out. */
function served(samples: Sample[]): Map<string, number> {
  const out = new Map<string, number>();
  const keys: Record<string, string[]> = {
    agent_janitor_reclaimed_bytes: ['provider', 'kind'],
    agent_janitor_scratch_bytes: ['provider', 'kind'],
    agent_janitor_reclaimable_bytes: ['provider', 'kind'],
    agent_janitor_held_bytes: ['provider', 'kind'],
    agent_janitor_items: ['provider', 'kind', 'verdict'],
    agent_janitor_refused_items: ['provider', 'kind', 'reason'],
    agent_janitor_unfinished_items: ['provider', 'kind', 'reason'],
    agent_janitor_provider_up: ['provider'],
    agent_janitor_footprint_bytes: ['provider', 'category'],
  };
  for (const sample of samples) {
    const labels = keys[sample.name];
    if (!labels || !sample.labels.provider) continue;
    if (sample.name === 'agent_janitor_items' && sample.value === 0) continue;
    out.set(`${sample.name}{${labels.map((label) => `${label}=${sample.labels[label]}`).join(',')}}`, sample.value);
  }
  return out;
}

describe("run --metrics-file through the CLI, over every provider's sandbox", () => {
  it('writes the figures of report.json, which node_exporter serves and promtool accepts', async () => {
    const box = await sandbox();
    const textDir = path.join(box.root, 'textfile');
    const textfile = path.join(textDir, 'agent_janitor.prom');
    const before = inventory(box.home);

    // Report-only first: what a deleting pass would free, in the report and in the metrics alike.
    const dry = await runCli(['run', '--config', box.config, '--metrics-file', textfile, '--json', '--report-only']);
    const planned = JSON.parse(dry.stdout) as Report;
    expect(planned.totals.wouldReclaimBytes).toBeGreaterThan(0);
    expect(planned.totals.wouldReclaimBytes).toBe(
      planned.items.filter((item) => item.verdict === 'would-delete').reduce((sum, item) => sum + item.bytes, 0),
    );
    // Opening the owners' databases read-only may leave SQLite's -wal and -shm files; nothing goes.
    expect(diffInventories(before, inventory(box.home)).removed).toEqual([]);
    const dryExporter = await startNodeExporter(textDir);
    const drySamples = await scrape(`${dryExporter.url}/metrics`);
    expect(served(drySamples)).toEqual(expectedFromReport(planned));
    expect(planned.footprint?.length).toBeGreaterThan(0);
    const reclaimable = drySamples.filter((sample) => sample.name === 'agent_janitor_reclaimable_bytes');
    expect(reclaimable.reduce((sum, sample) => sum + sample.value, 0)).toBe(planned.totals.wouldReclaimBytes);
    await dryExporter.stop();

    const first = await runCli(['run', '--config', box.config, '--metrics-file', textfile, '--json']);
    expect([0, 1], first.stderr).toContain(first.code);
    const report = JSON.parse(first.stdout) as Report;
    expect(report).toEqual(JSON.parse(readFileSync(path.join(box.reportDir, 'report.json'), 'utf8')));
    expect(report.items.length).toBeGreaterThan(0);
    expect(report.totals.deleted).toBeGreaterThan(0);
    // What the report says was deleted is what left the disk.
    const removed = new Set(
      diffInventories(before, inventory(box.home)).removed.map((entry) => path.join(box.home, entry)),
    );
    for (const item of report.items.filter(
      (entry) => entry.verdict === 'deleted' && entry.path?.startsWith(box.home),
    )) {
      expect(removed.has(item.path as string), item.path as string).toBe(true);
    }

    expect(readdirSync(textDir)).toEqual(['agent_janitor.prom']);
    const text = readFileSync(textfile, 'utf8');
    // What the report-only pass planned is what this one freed; nothing is left to reclaim.
    expect(report.totals.reclaimedBytes).toBe(planned.totals.wouldReclaimBytes);
    expect(report.totals.wouldReclaimBytes).toBe(0);
    expect(promtool(['check', 'metrics'], text)).toEqual({ status: 0, output: '' });

    const exporter = await startNodeExporter(textDir);
    const samples = await scrape(`${exporter.url}/metrics`);
    expect(served(samples)).toEqual(expectedFromReport(report));
    const value = (name: string) => samples.find((sample) => sample.name === name)?.value;
    expect(value('agent_janitor_last_run_timestamp_seconds')).toBeCloseTo(Date.parse(report.finishedAt) / 1000, 3);
    expect(value('agent_janitor_run_duration_seconds')).toBeCloseTo(
      (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000,
      3,
    );
    if (first.code === 0)
      expect(value('agent_janitor_last_success_timestamp_seconds')).toBeCloseTo(
        Date.parse(report.finishedAt) / 1000,
        3,
      );
    else expect(value('agent_janitor_last_success_timestamp_seconds')).toBeUndefined();

    // A second pass finds nothing more to reclaim; the file now holds its figures only. The Kilo
    // process the sandbox stands for still holds its lock however long the first pass took.
    expect(beatKiloLocks(box.root)).toBeGreaterThan(0);
    const second = await runCli(['run', '--config', box.config, '--metrics-file', textfile, '--json']);
    const again = JSON.parse(second.stdout) as Report;
    expect(again.totals.deleted).toBe(0);
    const samplesAgain = await scrape(`${exporter.url}/metrics`);
    expect(served(samplesAgain)).toEqual(expectedFromReport(again));
    expect(
      samplesAgain
        .filter((sample) => sample.name === 'agent_janitor_reclaimed_bytes')
        .every((sample) => sample.value === 0),
    ).toBe(true);
  }, 180_000);
});

/** What `pid` has open, from /proc/<pid>/fd. */
function openFiles(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

describe('agent_janitor_held_bytes through the textfile collector', () => {
  it('serves the bytes of a dead home a live child process holds open, beside what a deleting pass would free', async () => {
    const m = machine();
    writeProjects(m, [project('Storefront')]);
    // Two homes of a deleted project: one dead and idle, one a live process still writes into.
    const dead = makeHome(m, 'codex', 'retired-project:chat');
    const held = makeHome(m, 'codex', 'runaway-project:chat');
    const rollout = put(path.join(held, 'sessions', 'rollout-runaway.jsonl'), '{"type":"event_msg"}\n'.repeat(16_384));
    backdate(m.dir, new Date(Date.now() - 3 * DAY));
    const holder = spawnLiving('sh', ['-c', 'exec 3>>"$1"; exec sleep 600', 'sh', rollout]);
    await waitFor(() => openFiles(holder.pid as number).includes(rollout));
    const textDir = path.join(m.runDir, 'textfile');
    const textfile = path.join(textDir, 'agent_janitor.prom');

    const result = await runCli([
      'run',
      '--report-only',
      '--json',
      '--only',
      'watchfire',
      '--home',
      m.home,
      '--report-dir',
      m.reportDir,
      '--metrics-file',
      textfile,
    ]);

    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    const heldItem = itemAt(report, held);
    expect(heldItem).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(heldItem.detail).toContain(`process ${holder.pid} (sleep 600, run by `);
    expect(heldItem.bytes).toBeGreaterThan(16_384 * 20);
    const deadItem = itemAt(report, dead);
    expect(deadItem).toMatchObject({ verdict: 'would-delete', reason: 'project-deleted' });

    const exporter = await startNodeExporter(textDir);
    const samples = await scrape(`${exporter.url}/metrics`);
    const served = (name: string) => sampleValue(samples, name, { provider: 'watchfire', kind: 'session-home' });
    expect(served('agent_janitor_held_bytes')).toBe(heldItem.bytes);
    expect(served('agent_janitor_reclaimable_bytes')).toBe(deadItem.bytes);
    expect(
      sampleValue(samples, 'agent_janitor_refused_items', {
        provider: 'watchfire',
        kind: 'session-home',
        reason: 'in-use',
      }),
    ).toBe(1);
  });
});

describe('run --metrics-file when the pass cannot run', () => {
  it('a pass that throws exits 1 and still writes the file and the push: every provider down, no success', async () => {
    const dir = tempDir('aj-metrics-throw-');
    // A folder where report.json goes: the report folder itself passes the checks made before any
    // work, and the pass throws when it writes its report.
    const reportDir = path.join(dir, 'report');
    const blocker = path.join(reportDir, 'report.json');
    mkdirSync(blocker, { recursive: true });
    writeFileSync(path.join(blocker, 'x'), 'x');
    const textfile = path.join(dir, 'textfile', 'agent_janitor.prom');
    const gateway = await startPushgateway();
    const result = await runCli([
      'run',
      '--home',
      path.join(dir, 'home'),
      '--report-dir',
      reportDir,
      '--metrics-file',
      textfile,
      '--pushgateway',
      gateway.url,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(blocker);
    const names = PROVIDERS.map((provider) => provider.name).sort();
    const fromFile = parseExposition(readFileSync(textfile, 'utf8'));
    const up = (samples: Sample[]) => samples.filter((sample) => sample.name === 'agent_janitor_provider_up');
    expect(
      up(fromFile)
        .map((sample) => sample.labels.provider)
        .sort(),
    ).toEqual(names);
    expect(up(fromFile).every((sample) => sample.value === 0)).toBe(true);
    expect(fromFile.some((sample) => sample.name === 'agent_janitor_last_success_timestamp_seconds')).toBe(false);
    expect(
      fromFile.find((sample) => sample.name === 'agent_janitor_last_run_timestamp_seconds')?.value,
    ).toBeGreaterThan(Date.now() / 1000 - 60);
    const pushed = (await scrape(`${gateway.url}/metrics`)).filter((sample) => sample.labels.job === 'agent-janitor');
    expect(
      up(pushed)
        .map((sample) => [sample.labels.provider, sample.value])
        .sort(),
    ).toEqual(names.map((name) => [name, 0]));
    expect(promtool(['check', 'metrics'], readFileSync(textfile, 'utf8'))).toEqual({ status: 0, output: '' });
  });

  it('a pass that finds the run lock held exits 75 and writes no metrics: the pass that holds it will', async () => {
    const dir = tempDir('aj-metrics-lock-');
    const reportDir = path.join(dir, 'report');
    const holder = await holdRunLock(reportDir);
    try {
      const textfile = path.join(dir, 'textfile', 'agent_janitor.prom');
      const result = await runCli([
        'run',
        '--home',
        path.join(dir, 'home'),
        '--report-dir',
        reportDir,
        '--metrics-file',
        textfile,
      ]);
      expect(result.code).toBe(75);
      expect(result.stdout).toBe('');
      expect(existsSync(textfile)).toBe(false);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
