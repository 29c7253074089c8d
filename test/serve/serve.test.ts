import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Report } from '../../src/model/types.js';
import { describe, expect, it } from 'vitest';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { waitFor } from '../helpers/processes.js';
import { holdRunLock } from '../helpers/lock-holder.js';
import { parseExposition, sampleValue } from '../metrics/exposition.js';
import { bytesOf, KILO_ITEMS, WATCHFIRE_ITEMS } from '../metrics/fixture.js';
import {
  EVERY_SECOND,
  YEARLY,
  gate,
  get,
  getJson,
  metricsOf,
  sceneProviders,
  serveInProcess,
  serveScene,
  sleep,
} from './harness.js';

const DEAD_BYTES =
  bytesOf(WATCHFIRE_ITEMS[0] as (typeof WATCHFIRE_ITEMS)[number]) +
  bytesOf(KILO_ITEMS[0] as (typeof KILO_ITEMS)[number]);

describe('serve: HTTP', () => {
  it('answers /healthz and a JSON 404 on /report during the first pass, then the report and every metric', async () => {
    const scene = serveScene();
    const before = inventory(scene.home);
    const held = gate();
    const { serve, url } = await serveInProcess(scene, YEARLY, sceneProviders(scene, { beforeGather: held.wait }));

    const early = await getJson(`${url}/report`);
    expect(early.status).toBe(404);
    expect(early.body.error).toMatch(/no report yet/);
    const starting = await getJson(`${url}/healthz`);
    expect(starting).toMatchObject({ status: 200, body: { status: 'starting', passRunning: true, lastPassAt: null } });
    const quiet = await metricsOf(url);
    expect(sampleValue(quiet, 'agent_janitor_runs_total', { result: 'success' })).toBe(0);
    expect(sampleValue(quiet, 'agent_janitor_items')).toBeUndefined();

    held.open();
    await waitFor(() => serve.runner.lastPass !== null);

    const report = await get(`${url}/report`);
    expect(report.status).toBe(200);
    expect(report.type).toMatch(/^application\/json/);
    expect(JSON.parse(report.text)).toEqual(
      JSON.parse(readFileSync(path.join(scene.reportDir, 'report.json'), 'utf8')),
    );

    const health = await getJson(`${url}/healthz`);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', passRunning: false } });

    const metrics = await get(`${url}/metrics`);
    expect(metrics.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(metrics.text);
    expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'success' })).toBe(1);
    expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'failure' })).toBe(0);
    expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'skipped' })).toBe(0);
    expect(sampleValue(samples, 'agent_janitor_reclaimed_bytes_total')).toBe(DEAD_BYTES);
    expect(sampleValue(samples, 'agent_janitor_refused_items_total')).toBe(2);
    expect(sampleValue(samples, 'agent_janitor_scratch_bytes', { provider: 'kilo', kind: 'checkpoint-repo' })).toBe(
      1200,
    );
    expect(sampleValue(samples, 'agent_janitor_provider_up', { provider: 'watchfire' })).toBe(1);
    // The footprint of the pass, as report.json has it.
    const { footprint } = JSON.parse(report.text) as Report;
    expect(footprint?.length).toBeGreaterThan(0);
    for (const { provider, category, bytes } of footprint ?? [])
      expect(sampleValue(samples, 'agent_janitor_footprint_bytes', { provider, category })).toBe(bytes);
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeGreaterThan(0);
    // The default Node.js process metrics.
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'nodejs_heap_size_total_bytes')).toBeGreaterThan(0);

    const removed = diffInventories(before, inventory(scene.home)).removed;
    expect(removed.filter((entry) => entry.split(path.sep).length <= 4 && /(dead|gone)$/.test(entry)).sort()).toEqual([
      '.local/share/kilo/gone',
      '.watchfire/dead',
    ]);
    // The pass also wrote the textfile.
    expect(
      sampleValue(parseExposition(readFileSync(scene.textfile, 'utf8')), 'agent_janitor_reclaimed_bytes', {
        provider: 'kilo',
      }),
    ).toBe(2048);

    const post = await fetch(`${url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect((await getJson(`${url}/nowhere`)).status).toBe(404);
  });

  it('answers 503 with the reason when the last pass failed', async () => {
    const scene = serveScene();
    const { serve, url } = await serveInProcess(
      scene,
      YEARLY,
      sceneProviders(scene, {}, { failWith: 'kilo.db: file is not a database' }),
    );
    await waitFor(() => serve.runner.lastPass !== null);
    const health = await getJson<{ status: string; reason: string }>(`${url}/healthz`);
    expect(health.status).toBe(503);
    expect(health.body.status).toBe('failing');
    expect(health.body.reason).toContain('provider kilo');
    expect(health.body.reason).toContain('kilo.db: file is not a database');
    const samples = await metricsOf(url);
    expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'failure' })).toBe(1);
    expect(sampleValue(samples, 'agent_janitor_provider_up', { provider: 'kilo' })).toBe(0);
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeUndefined();
  });
});

describe('serve: schedule', () => {
  it('runs on an every-second schedule, adds up its counters, and writes the textfile each pass', async () => {
    const scene = serveScene();
    const { url } = await serveInProcess(scene, EVERY_SECOND, sceneProviders(scene));
    await waitFor(
      async () => (sampleValue(await metricsOf(url), 'agent_janitor_runs_total', { result: 'success' }) ?? 0) >= 3,
      15_000,
    );
    const samples = await metricsOf(url);
    const successes = sampleValue(samples, 'agent_janitor_runs_total', { result: 'success' }) as number;
    // The dead items went in the first pass; later passes find nothing more to reclaim.
    expect(sampleValue(samples, 'agent_janitor_reclaimed_bytes_total')).toBe(DEAD_BYTES);
    // Both refusals (too-recent, kilo-lock-held) are found again by every pass.
    expect(sampleValue(samples, 'agent_janitor_refused_items_total')).toBe(2 * successes);
    expect(sampleValue(samples, 'agent_janitor_reclaimed_bytes', { provider: 'watchfire' })).toBe(0);

    const lastRun = () =>
      sampleValue(
        parseExposition(readFileSync(scene.textfile, 'utf8')),
        'agent_janitor_last_run_timestamp_seconds',
      ) as number;
    const seen = lastRun();
    await waitFor(() => lastRun() > seen, 5000);
  });

  it('skips a tick that comes while a pass is running, and never runs two passes at once', async () => {
    const scene = serveScene();
    let active = 0;
    let most = 0;
    let gathers = 0;
    const slowFirst = async () => {
      gathers += 1;
      active += 1;
      most = Math.max(most, active);
      if (gathers === 1) await sleep(2500);
      active -= 1;
    };
    const { serve, url } = await serveInProcess(
      scene,
      EVERY_SECOND,
      sceneProviders(scene, { beforeGather: slowFirst }),
    );
    await waitFor(
      async () => (sampleValue(await metricsOf(url), 'agent_janitor_runs_total', { result: 'success' }) ?? 0) >= 2,
      15_000,
    );
    await serve.stop();
    const samples = await serve.counters.registry.metrics().then(parseExposition);
    const successes = sampleValue(samples, 'agent_janitor_runs_total', { result: 'success' }) as number;
    expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'skipped' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'failure' })).toBe(0);
    expect(most).toBe(1);
    // Skipped ticks are dropped, not queued: one gather per pass.
    expect(gathers).toBe(successes);
  });

  it('a pass that finds the run lock held by another process counts as skipped, not failed', async () => {
    const scene = serveScene();
    const holder = await holdRunLock(scene.reportDir);
    try {
      const before = inventory(scene.home);
      const { serve, url } = await serveInProcess(scene, YEARLY, sceneProviders(scene));
      await waitFor(
        async () => sampleValue(await metricsOf(url), 'agent_janitor_runs_total', { result: 'skipped' }) === 1,
      );
      await serve.runner.idle();
      const samples = await metricsOf(url);
      expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'failure' })).toBe(0);
      expect(sampleValue(samples, 'agent_janitor_runs_total', { result: 'success' })).toBe(0);
      expect(serve.runner.lastPass).toBeNull();
      expect((await getJson(`${url}/healthz`)).body).toMatchObject({ status: 'starting' });
      expect((await getJson(`${url}/report`)).status).toBe(404);
      expect(existsSync(scene.textfile)).toBe(false);
      expect(diffInventories(before, inventory(scene.home))).toEqual({ removed: [], changed: [], added: [] });

      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
      expect(serve.runner.trigger('schedule')).toBe(true);
      await serve.runner.idle();
      expect(sampleValue(await metricsOf(url), 'agent_janitor_runs_total', { result: 'success' })).toBe(1);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('/healthz turns 503 when no pass has succeeded within two schedule intervals', async () => {
    const scene = serveScene();
    const held = gate();
    let gathers = 0;
    const holdSecond = async () => {
      gathers += 1;
      if (gathers === 2) await held.wait();
    };
    const { serve, url } = await serveInProcess(
      scene,
      EVERY_SECOND,
      sceneProviders(scene, { beforeGather: holdSecond }),
    );
    await waitFor(() => serve.runner.lastPass?.succeeded === true);
    expect((await getJson(`${url}/healthz`)).status).toBe(200);
    // The second pass hangs; two one-second intervals after the first success, health goes stale.
    await waitFor(async () => (await getJson(`${url}/healthz`)).status === 503, 10_000);
    const stale = await getJson<{ status: string; reason: string; passRunning: boolean }>(`${url}/healthz`);
    expect(stale.body).toMatchObject({ status: 'stale', passRunning: true });
    expect(stale.body.reason).toMatch(/more than two schedule intervals \(2s\)/);
    held.open();
    await waitFor(async () => (await getJson(`${url}/healthz`)).status === 200, 10_000);
  });

  it('stop() finishes the pass under way, then closes the server', async () => {
    const scene = serveScene();
    const held = gate();
    const { serve, url } = await serveInProcess(scene, YEARLY, sceneProviders(scene, { beforeGather: held.wait }));
    expect(serve.runner.running).toBe(true);
    let stopped = false;
    const stopping = serve.stop().then(() => (stopped = true));
    await sleep(300);
    expect(stopped).toBe(false);
    expect((await getJson(`${url}/healthz`)).body).toMatchObject({ passRunning: true });
    held.open();
    await stopping;
    expect(serve.runner.lastPass?.succeeded).toBe(true);
    expect(existsSync(path.join(scene.watchfireRoot, 'dead'))).toBe(false);
    expect(existsSync(path.join(scene.reportDir, 'report.json'))).toBe(true);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
