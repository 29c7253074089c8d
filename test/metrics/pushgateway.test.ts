import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pushUrl } from '../../src/outputs/metrics/pushgateway.js';
import { runCli } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { tempDir } from '../helpers/temp.js';
import { type Sample, parseExposition, scrape, series, sampleValue } from './exposition.js';
import {
  KILO_ITEMS,
  WATCHFIRE_ITEMS,
  buildItems,
  bytesOf,
  fixtureConfig,
  fixturePass,
  fixtureProvider,
} from './fixture.js';
import { freePort, startPushgateway } from './servers.js';

function scene() {
  const dir = tempDir('aj-push-');
  const watchfireRoot = path.join(dir, 'home', '.watchfire');
  const kiloRoot = path.join(dir, 'home', '.local', 'share', 'kilo');
  buildItems(watchfireRoot, WATCHFIRE_ITEMS);
  buildItems(kiloRoot, KILO_ITEMS);
  return { dir, home: path.join(dir, 'home'), watchfireRoot, kiloRoot, reportDir: path.join(dir, 'report') };
}

/** The group this host's pushes land in. */
const group = (samples: Sample[], job: string) =>
  samples.filter(
    (sample) =>
      sample.name.startsWith('agent_janitor_') && sample.labels.job === job && sample.labels.instance === os.hostname(),
  );

describe('run --pushgateway, received by a real Pushgateway', () => {
  it('pushes every contract metric under job and instance, and the Pushgateway serves them', async () => {
    const s = scene();
    const gateway = await startPushgateway();
    const config = await fixtureConfig({ reportDir: s.reportDir, pushgateway: gateway.url });
    const pass = await fixturePass(config, [
      fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS),
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS),
    ]);
    expect(pass.finished && pass.exitCode).toBe(0);
    if (!pass.finished) return;

    const samples = group(await scrape(`${gateway.url}/metrics`), 'agent-janitor');
    const dead = bytesOf(WATCHFIRE_ITEMS[0] as (typeof WATCHFIRE_ITEMS)[number]);
    expect(sampleValue(samples, 'agent_janitor_reclaimed_bytes', { provider: 'watchfire', kind: 'session-home' })).toBe(
      dead,
    );
    expect(
      sampleValue(samples, 'agent_janitor_items', { provider: 'kilo', kind: 'checkpoint-repo', verdict: 'unfinished' }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'agent_janitor_refused_items', {
        provider: 'watchfire',
        kind: 'session-home',
        reason: 'too-recent',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'agent_janitor_unfinished_items', {
        provider: 'kilo',
        kind: 'checkpoint-repo',
        reason: 'uncommitted-changes',
      }),
    ).toBe(1);
    expect(sampleValue(samples, 'agent_janitor_scratch_bytes', { provider: 'kilo', kind: 'checkpoint-repo' })).toBe(
      1200,
    );
    expect(series(samples, 'agent_janitor_provider_up', ['provider'])).toEqual(
      new Map([
        ['provider=watchfire', 1],
        ['provider=kilo', 1],
      ]),
    );
    const finished = Date.parse(pass.result.report.finishedAt) / 1000;
    expect(sampleValue(samples, 'agent_janitor_last_run_timestamp_seconds')).toBeCloseTo(finished, 3);
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeCloseTo(finished, 3);
    expect(sampleValue(samples, 'agent_janitor_run_duration_seconds')).toBeGreaterThanOrEqual(0);
    expect(existsSync(path.join(s.watchfireRoot, 'dead'))).toBe(false);
  });

  it('a failed pass leaves the last success out, so the Pushgateway keeps the old one; stale series are replaced', async () => {
    const s = scene();
    const gateway = await startPushgateway();
    const config = await fixtureConfig({ reportDir: s.reportDir, pushgateway: gateway.url, job: 'nightly' });
    const first = await fixturePass(config, [
      fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS),
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS),
    ]);
    if (!first.finished) throw first.error;
    const firstSuccess = Date.parse(first.result.report.finishedAt) / 1000;

    const second = await fixturePass(
      config,
      [fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS, { failWith: 'projects.yaml: unknown schema' })],
      { only: ['kilo'] },
    );
    expect(second.finished && second.exitCode).toBe(1);
    if (!second.finished) return;

    const samples = group(await scrape(`${gateway.url}/metrics`), 'nightly');
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeCloseTo(firstSuccess, 3);
    expect(sampleValue(samples, 'agent_janitor_last_run_timestamp_seconds')).toBeCloseTo(
      Date.parse(second.result.report.finishedAt) / 1000,
      3,
    );
    expect(series(samples, 'agent_janitor_provider_up', ['provider'])).toEqual(new Map([['provider=kilo', 0]]));
    // The first pass's watchfire refusal and kilo unfinished item are gone with the POST that replaced their families.
    expect(series(samples, 'agent_janitor_refused_items', ['provider', 'kind', 'reason'])).toEqual(
      new Map([['provider=kilo,kind=checkpoint-repo,reason=source-unreadable', 2]]),
    );
    expect(series(samples, 'agent_janitor_unfinished_items', ['provider', 'kind', 'reason'])).toEqual(
      new Map([['provider=,kind=,reason=', 0]]),
    );
  });

  it('a Pushgateway that is down makes the exit 1 and is logged; the pass, its report and the textfile are kept', async () => {
    const s = scene();
    const down = `http://127.0.0.1:${await freePort()}`;
    const textfile = path.join(s.dir, 'textfile', 'agent_janitor.prom');
    const before = inventory(s.home);
    const config = await fixtureConfig({ reportDir: s.reportDir, pushgateway: down, metricsFile: textfile });
    const pass = await fixturePass(config, [fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS)]);
    expect(pass.finished && pass.exitCode).toBe(1);
    if (!pass.finished) return;
    expect(pass.result.exitCode).toBe(0);
    expect(pass.delivery.errors.join()).toContain(`${down}/metrics/job/agent-janitor/instance/`);
    expect(diffInventories(before, inventory(s.home)).removed).toContain('.watchfire/dead');
    const report = JSON.parse(readFileSync(path.join(s.reportDir, 'report.json'), 'utf8')) as {
      totals: { deleted: number };
    };
    expect(report.totals.deleted).toBe(1);
    // The run exits 1, so its textfile records no success.
    const samples = parseExposition(readFileSync(textfile, 'utf8'));
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeUndefined();
    expect(sampleValue(samples, 'agent_janitor_reclaimed_bytes', { provider: 'watchfire' })).toBe(1234);
  });

  it('through the CLI: a push that works exits 0, a Pushgateway that is down exits 1 with the report still written', async () => {
    const dir = tempDir('aj-push-cli-');
    const home = path.join(dir, 'home');
    const gateway = await startPushgateway();
    const ok = await runCli([
      'run',
      '--home',
      home,
      '--report-dir',
      path.join(dir, 'ok'),
      '--pushgateway',
      gateway.url,
      '--json',
    ]);
    expect(ok.code).toBe(0);
    const report = JSON.parse(ok.stdout) as { host: string; finishedAt: string };
    const pushed = (await scrape(`${gateway.url}/metrics`)).filter((sample) => sample.labels.instance === report.host);
    expect(sampleValue(pushed, 'agent_janitor_last_success_timestamp_seconds', { job: 'agent-janitor' })).toBeCloseTo(
      Date.parse(report.finishedAt) / 1000,
      3,
    );

    const down = `http://127.0.0.1:${await freePort()}`;
    const failed = await runCli([
      'run',
      '--home',
      home,
      '--report-dir',
      path.join(dir, 'down'),
      '--pushgateway',
      down,
      '--json',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('the metrics push failed');
    expect(failed.stderr).toContain(down);
    expect(JSON.parse(failed.stdout)).toEqual(JSON.parse(readFileSync(path.join(dir, 'down', 'report.json'), 'utf8')));
  });

  it('builds the grouping URL the Pushgateway expects', () => {
    expect(pushUrl({ url: 'http://pg:9091', job: 'agent-janitor' }, 'devbox-1')).toBe(
      'http://pg:9091/metrics/job/agent-janitor/instance/devbox-1',
    );
    expect(pushUrl({ url: 'http://pg:9091/prefix/', job: 'a b' }, 'h')).toBe(
      'http://pg:9091/prefix/metrics/job/a%20b/instance/h',
    );
    expect(pushUrl({ url: 'http://pg:9091', job: 'team/janitor' }, 'h')).toBe(
      `http://pg:9091/metrics/job@base64/${Buffer.from('team/janitor').toString('base64url')}/instance/h`,
    );
  });
});
