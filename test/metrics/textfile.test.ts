import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
import { promtool, startNodeExporter } from './servers.js';

const VERDICT_ZEROS = { 'would-delete': 0, kept: 0, refused: 0, unfinished: 0, failed: 0, deleted: 0 };
const bytes = (items: typeof WATCHFIRE_ITEMS, name: string) =>
  bytesOf(items.find((item) => item.name === name) as (typeof items)[number]);

function scene() {
  const dir = tempDir('aj-metrics-');
  const watchfireRoot = path.join(dir, 'home', '.watchfire');
  const kiloRoot = path.join(dir, 'home', '.local', 'share', 'kilo');
  buildItems(watchfireRoot, WATCHFIRE_ITEMS);
  buildItems(kiloRoot, KILO_ITEMS);
  const textDir = path.join(dir, 'textfile');
  return {
    dir,
    watchfireRoot,
    kiloRoot,
    textDir,
    textfile: path.join(textDir, 'agent_janitor.prom'),
    reportDir: path.join(dir, 'report'),
  };
}

/** The samples of the contract's metrics only (node_exporter adds its own). */
const ours = (samples: Sample[]) => samples.filter((sample) => sample.name.startsWith('agent_janitor_'));

describe('run --metrics-file, read by a real node_exporter', () => {
  it('serves every contract metric with the values of the pass that wrote the file', async () => {
    const s = scene();
    const before = inventory(path.join(s.dir, 'home'));
    const config = await fixtureConfig({ reportDir: s.reportDir, metricsFile: s.textfile });
    const pass = await fixturePass(config, [
      fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS),
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS),
    ]);
    expect(pass.finished && pass.exitCode).toBe(0);
    if (!pass.finished) return;

    // The pass did what the metrics will say: exactly the two dead, old folders are gone.
    const changes = diffInventories(before, inventory(path.join(s.dir, 'home')));
    expect(changes.removed.sort()).toEqual([
      '.local/share/kilo/gone',
      '.local/share/kilo/gone/objects',
      '.local/share/kilo/gone/objects/pack',
      '.watchfire/dead',
      '.watchfire/dead/a.jsonl',
      '.watchfire/dead/b',
      '.watchfire/dead/b/c.txt',
    ]);
    expect(changes.changed.filter((entry) => !['.watchfire', '.local/share/kilo'].includes(entry))).toEqual([]);
    expect(changes.added).toEqual([]);

    // Only the file itself in the folder: the temp file was renamed, not left beside it.
    expect(readdirSync(s.textDir)).toEqual(['agent_janitor.prom']);
    const text = readFileSync(s.textfile, 'utf8');
    expect(promtool(['check', 'metrics'], text)).toEqual({ status: 0, output: '' });

    const exporter = await startNodeExporter(s.textDir);
    const all = await scrape(`${exporter.url}/metrics`);
    expect(sampleValue(all, 'node_textfile_scrape_error')).toBe(0);
    const samples = ours(all);

    expect(series(samples, 'agent_janitor_reclaimed_bytes', ['provider', 'kind'])).toEqual(
      new Map([
        ['provider=watchfire,kind=session-home', bytes(WATCHFIRE_ITEMS, 'dead')],
        ['provider=kilo,kind=checkpoint-repo', bytes(KILO_ITEMS, 'gone')],
      ]),
    );
    expect(series(samples, 'agent_janitor_scratch_bytes', ['provider', 'kind'])).toEqual(
      new Map([
        ['provider=watchfire,kind=session-home', bytes(WATCHFIRE_ITEMS, 'alive') + bytes(WATCHFIRE_ITEMS, 'fresh')],
        ['provider=kilo,kind=checkpoint-repo', bytes(KILO_ITEMS, 'dirty') + bytes(KILO_ITEMS, 'pinned')],
      ]),
    );
    const items = series(samples, 'agent_janitor_items', ['provider', 'kind', 'verdict']);
    const expectedItems = new Map<string, number>();
    for (const [provider, kind, counts] of [
      ['watchfire', 'session-home', { ...VERDICT_ZEROS, deleted: 1, kept: 1, refused: 1 }],
      ['kilo', 'checkpoint-repo', { ...VERDICT_ZEROS, deleted: 1, unfinished: 1, refused: 1 }],
    ] as const) {
      for (const [verdict, count] of Object.entries(counts))
        expectedItems.set(`provider=${provider},kind=${kind},verdict=${verdict}`, count);
    }
    expect(items).toEqual(expectedItems);
    expect(series(samples, 'agent_janitor_refused_items', ['provider', 'kind', 'reason'])).toEqual(
      new Map([
        ['provider=watchfire,kind=session-home,reason=too-recent', 1],
        ['provider=kilo,kind=checkpoint-repo,reason=kilo-lock-held', 1],
      ]),
    );
    expect(series(samples, 'agent_janitor_unfinished_items', ['provider', 'kind', 'reason'])).toEqual(
      new Map([['provider=kilo,kind=checkpoint-repo,reason=uncommitted-changes', 1]]),
    );
    expect(series(samples, 'agent_janitor_provider_up', ['provider'])).toEqual(
      new Map([
        ['provider=watchfire', 1],
        ['provider=kilo', 1],
      ]),
    );

    const finished = Date.parse(pass.result.report.finishedAt) / 1000;
    const started = Date.parse(pass.result.report.startedAt) / 1000;
    expect(sampleValue(samples, 'agent_janitor_last_run_timestamp_seconds')).toBeCloseTo(finished, 3);
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeCloseTo(finished, 3);
    expect(sampleValue(samples, 'agent_janitor_run_duration_seconds')).toBeCloseTo(finished - started, 3);
    expect(Math.abs(finished - Date.now() / 1000)).toBeLessThan(60);
  });

  it('a failed pass reads provider_up 0, keeps the last success, and leaves no figure of the pass before', async () => {
    const s = scene();
    const config = await fixtureConfig({ reportDir: s.reportDir, metricsFile: s.textfile });
    const first = await fixturePass(config, [
      fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS),
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS),
    ]);
    if (!first.finished) throw first.error;
    const firstSuccess = Date.parse(first.result.report.finishedAt) / 1000;

    const home = path.join(s.dir, 'home');
    const before = inventory(home);
    const second = await fixturePass(config, [
      fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS),
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS, { failWith: 'state.db: file is not a database' }),
    ]);
    expect(second.finished && second.exitCode).toBe(1);
    if (!second.finished) return;
    expect(diffInventories(before, inventory(home))).toEqual({ removed: [], changed: [], added: [] });

    const exporter = await startNodeExporter(s.textDir);
    const samples = ours(await scrape(`${exporter.url}/metrics`));
    expect(series(samples, 'agent_janitor_provider_up', ['provider'])).toEqual(
      new Map([
        ['provider=watchfire', 1],
        ['provider=kilo', 0],
      ]),
    );
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeCloseTo(firstSuccess, 3);
    expect(sampleValue(samples, 'agent_janitor_last_run_timestamp_seconds')).toBeCloseTo(
      Date.parse(second.result.report.finishedAt) / 1000,
      3,
    );
    // Nothing left from the first pass: kilo's items are now refused for its unreadable source.
    expect(series(samples, 'agent_janitor_refused_items', ['provider', 'kind', 'reason'])).toEqual(
      new Map([
        ['provider=watchfire,kind=session-home,reason=too-recent', 1],
        ['provider=kilo,kind=checkpoint-repo,reason=source-unreadable', 2],
      ]),
    );
    expect(series(samples, 'agent_janitor_reclaimed_bytes', ['provider', 'kind'])).toEqual(
      new Map([
        ['provider=watchfire,kind=session-home', 0],
        ['provider=kilo,kind=checkpoint-repo', 0],
      ]),
    );
    // A family with no figure in this pass is one unlabelled 0, not the first pass's series.
    expect(samples.filter((sample) => sample.name === 'agent_janitor_unfinished_items')).toEqual([
      { name: 'agent_janitor_unfinished_items', labels: {}, value: 0 },
    ]);
    expect(promtool(['check', 'metrics'], readFileSync(s.textfile, 'utf8'))).toEqual({ status: 0, output: '' });
  });

  it('a pass that throws still writes the file: every provider down, the last success carried over', async () => {
    const s = scene();
    const config = await fixtureConfig({ reportDir: s.reportDir, metricsFile: s.textfile });
    const providers = [
      fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS),
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS),
    ];
    const first = await fixturePass(config, providers);
    if (!first.finished) throw first.error;
    const firstSuccess = Date.parse(first.result.report.finishedAt) / 1000;

    // A report folder under a regular file cannot be made: the pass throws before it reads anything.
    const blocker = path.join(s.dir, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const broken = await fixtureConfig({ reportDir: path.join(blocker, 'report'), metricsFile: s.textfile });
    const home = path.join(s.dir, 'home');
    const before = inventory(home);
    const thrown = await fixturePass(broken, providers);
    expect(thrown.finished).toBe(false);
    expect(diffInventories(before, inventory(home))).toEqual({ removed: [], changed: [], added: [] });

    const samples = parseExposition(readFileSync(s.textfile, 'utf8'));
    expect(series(samples, 'agent_janitor_provider_up', ['provider'])).toEqual(
      new Map([
        ['provider=watchfire', 0],
        ['provider=kilo', 0],
      ]),
    );
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeCloseTo(firstSuccess, 3);
    expect(sampleValue(samples, 'agent_janitor_last_run_timestamp_seconds')).toBeGreaterThan(firstSuccess);
    expect(sampleValue(samples, 'agent_janitor_scratch_bytes')).toBe(0);
  });

  it('before any success the last success time is absent', async () => {
    const s = scene();
    const config = await fixtureConfig({ reportDir: s.reportDir, metricsFile: s.textfile });
    const pass = await fixturePass(config, [
      fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS, { failWith: 'unknown schema version 9' }),
    ]);
    expect(pass.finished && pass.exitCode).toBe(1);
    const samples = parseExposition(readFileSync(s.textfile, 'utf8'));
    expect(sampleValue(samples, 'agent_janitor_last_success_timestamp_seconds')).toBeUndefined();
    expect(sampleValue(samples, 'agent_janitor_last_run_timestamp_seconds')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'agent_janitor_provider_up', { provider: 'kilo' })).toBe(0);
  });

  it('a report-only pass counts what it would delete as scratch still on disk and reclaims nothing', async () => {
    const s = scene();
    const home = path.join(s.dir, 'home');
    const before = inventory(home);
    const config = await fixtureConfig({ reportDir: s.reportDir, metricsFile: s.textfile });
    const pass = await fixturePass(
      config,
      [fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS), fixtureProvider('kilo', s.kiloRoot, KILO_ITEMS)],
      { reportOnly: true },
    );
    expect(pass.finished && pass.exitCode).toBe(0);
    expect(diffInventories(before, inventory(home))).toEqual({ removed: [], changed: [], added: [] });
    const samples = parseExposition(readFileSync(s.textfile, 'utf8'));
    expect(series(samples, 'agent_janitor_scratch_bytes', ['provider', 'kind'])).toEqual(
      new Map([
        ['provider=watchfire,kind=session-home', WATCHFIRE_ITEMS.reduce((sum, item) => sum + bytesOf(item), 0)],
        ['provider=kilo,kind=checkpoint-repo', KILO_ITEMS.reduce((sum, item) => sum + bytesOf(item), 0)],
      ]),
    );
    expect(sampleValue(samples, 'agent_janitor_reclaimed_bytes', { provider: 'watchfire' })).toBe(0);
    expect(sampleValue(samples, 'agent_janitor_items', { provider: 'kilo', verdict: 'would-delete' })).toBe(1);
    expect(sampleValue(samples, 'agent_janitor_items', { provider: 'kilo', verdict: 'deleted' })).toBe(0);
  });

  it('a metrics file that cannot be written makes the exit 1 and loses neither the pass nor the report', async () => {
    const s = scene();
    const blocker = path.join(s.dir, 'blocker');
    writeFileSync(blocker, 'x');
    chmodSync(blocker, 0o444);
    const config = await fixtureConfig({
      reportDir: s.reportDir,
      metricsFile: path.join(blocker, 'agent_janitor.prom'),
    });
    const pass = await fixturePass(config, [fixtureProvider('watchfire', s.watchfireRoot, WATCHFIRE_ITEMS)]);
    expect(pass.finished && pass.exitCode).toBe(1);
    expect(pass.delivery.errors.join()).toContain(path.join(blocker, 'agent_janitor.prom'));
    const report = JSON.parse(readFileSync(path.join(s.reportDir, 'report.json'), 'utf8')) as {
      totals: { deleted: number };
    };
    expect(report.totals.deleted).toBe(1);
  });
});
