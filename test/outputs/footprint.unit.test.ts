import { describe, expect, it } from 'vitest';
import { withGrowth } from '../../src/model/footprint.js';
import type { FootprintEntry } from '../../src/model/types.js';
import { renderMarkdown } from '../../src/outputs/markdown.js';
import { renderLastPass } from '../../src/outputs/metrics/last-pass.js';
import { outcomeOfReport } from '../../src/outputs/metrics/outcome.js';
import { renderSummary } from '../../src/outputs/summary.js';
import { report } from '../helpers/report-fixture.js';

const GiB = 1024 ** 3;

const entry = (provider: string, category: FootprintEntry['category'], bytes: number): FootprintEntry => ({
  provider,
  category,
  bytes,
  files: 3,
  largest: { path: `/home/ana/${provider}/${category}/big`, bytes: Math.floor(bytes / 2) },
});

const FOOTPRINT: FootprintEntry[] = [
  entry('watchfire', 'scratch', 2 * GiB),
  entry('watchfire', 'logs', 10),
  entry('kilo', 'checkpoints', 40 * GiB),
  entry('claude-code', 'transcripts', 12 * GiB),
  entry('codex', 'databases', 5 * GiB),
];

describe("the footprint's growth", () => {
  const measured = ['watchfire', 'kilo', 'claude-code', 'codex'];

  it('is absent with no previous footprint to compare with, and the change since it otherwise', () => {
    expect(withGrowth(FOOTPRINT, null, measured).every((each) => !('growthBytes' in each))).toBe(true);
    const previous = [
      { provider: 'watchfire', category: 'scratch', bytes: 2 * GiB },
      { provider: 'kilo', category: 'checkpoints', bytes: 39 * GiB },
      { provider: 'codex', category: 'databases', bytes: 6 * GiB },
    ];
    const grown = new Map(
      withGrowth(FOOTPRINT, previous, measured).map((each) => [`${each.provider} ${each.category}`, each.growthBytes]),
    );
    expect(grown).toEqual(
      new Map([
        ['watchfire scratch', 0],
        ['watchfire logs', 10],
        ['kilo checkpoints', GiB],
        ['claude-code transcripts', 12 * GiB],
        ['codex databases', -GiB],
      ]),
    );
  });

  it('shows a category that emptied, of a provider this pass measured, as 0 bytes with its loss', () => {
    const previous = [
      { provider: 'codex', category: 'logs', bytes: 700 },
      // A provider this pass did not measure (--only), a category of a later version: left alone.
      { provider: 'owl', category: 'logs', bytes: 900 },
      { provider: 'codex', category: 'caches', bytes: 800 },
    ];
    const grown = withGrowth(FOOTPRINT, previous, measured);
    expect(grown.filter((each) => each.bytes === 0)).toEqual([
      { provider: 'codex', category: 'logs', bytes: 0, files: 0, largest: null, growthBytes: -700 },
    ]);
    // In the order of the providers, then of the categories.
    expect(grown.map((each) => `${each.provider} ${each.category}`)).toEqual([
      'watchfire scratch',
      'watchfire logs',
      'kilo checkpoints',
      'claude-code transcripts',
      'codex logs',
      'codex databases',
    ]);
  });
});

describe('the footprint in the outputs', () => {
  const grown = withGrowth(
    FOOTPRINT,
    [{ provider: 'kilo', category: 'checkpoints', bytes: 38 * GiB }],
    ['watchfire', 'kilo', 'claude-code', 'codex'],
  );

  it('is a table in report.md, largest first, with growth and the largest file', () => {
    const lines = renderMarkdown(report([], { footprint: grown })).split('\n');
    const start = lines.indexOf("## Footprint: where each tool's disk goes");
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 2, start + 9)).toEqual([
      '| provider | category | size | files | growth | largest file |',
      '| --- | --- | --- | --- | --- | --- |',
      '| kilo | checkpoints | 40.0 GiB | 3 | +2.0 GiB | /home/ana/kilo/checkpoints/big (20.0 GiB) |',
      '| claude-code | transcripts | 12.0 GiB | 3 | +12.0 GiB | /home/ana/claude-code/transcripts/big (6.0 GiB) |',
      '| codex | databases | 5.0 GiB | 3 | +5.0 GiB | /home/ana/codex/databases/big (2.5 GiB) |',
      '| watchfire | scratch | 2.0 GiB | 3 | +2.0 GiB | /home/ana/watchfire/scratch/big (1.0 GiB) |',
      '| watchfire | logs | 10 B | 3 | +10 B | /home/ana/watchfire/logs/big (5 B) |',
    ]);
    const first = renderMarkdown(report([], { footprint: withGrowth(FOOTPRINT, null, []) }));
    expect(first).toContain('| kilo | checkpoints | 40.0 GiB | 3 | - | /home/ana/kilo/checkpoints/big (20.0 GiB) |');
    expect(renderMarkdown(report([]))).not.toContain('Footprint');
  });

  it('names its three largest categories in the summary', () => {
    expect(renderSummary(report([], { footprint: grown }), '/r')).toContain(
      '\n  disk, largest first: kilo checkpoints 40.0 GiB (+2.0 GiB), claude-code transcripts 12.0 GiB (+12.0 GiB), codex databases 5.0 GiB (+5.0 GiB)\n',
    );
    expect(renderSummary(report([]), '/r')).not.toContain('disk, largest first');
  });

  it('is the gauge agent_janitor_footprint_bytes by provider and category, an unlabelled 0 without one', async () => {
    const text = await renderLastPass(outcomeOfReport(report([], { footprint: grown }), 0, ['kilo']), null);
    expect(text).toContain(`agent_janitor_footprint_bytes{provider="kilo",category="checkpoints"} ${40 * GiB}`);
    expect(text).toContain('agent_janitor_footprint_bytes{provider="watchfire",category="logs"} 10');
    const none = await renderLastPass(outcomeOfReport(report([]), 0, ['kilo']), null);
    expect(none).toMatch(/^agent_janitor_footprint_bytes 0$/m);
  });
});
