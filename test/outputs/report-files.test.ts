import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { renderMarkdown } from '../../src/outputs/markdown.js';
import { writeReport } from '../../src/outputs/report-files.js';
import { reportJsonPieces } from '../../src/outputs/report-json.js';
import { item, report } from '../helpers/report-fixture.js';
import { tempDir } from '../helpers/temp.js';

// report.json and report.md are written a piece at a time; a reader must see exactly what the
// whole strings held.

/** Any JSON value, with odd keys and text: quotes, newlines, lone surrogates, empty containers. */
const json = fc.jsonValue({ maxDepth: 3 });
const reportLike = fc.record({
  schemaVersion: fc.constant(1),
  host: fc.string({ unit: 'binary' }),
  nothing: fc.constant(undefined),
  providers: fc.array(json, { maxLength: 3 }),
  items: fc.array(fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), json, { maxKeys: 4 }), { maxLength: 6 }),
  totals: fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 3 }),
});

/** A report of `count` items whose paths and details hold what escaping is for. */
function bigReport(count: number): Report {
  const items = Array.from({ length: count }, (_, i) =>
    item({
      path: `/home/ana/.watchfire/homes/p-${i}|"\u00e9\udcff\n`,
      bytes: i * 4096,
      verdict: i % 3 === 0 ? 'kept' : 'would-delete',
      reason: 'project-deleted',
      detail: `ended ${i} days ago, \`quoted\` | piped`,
    }),
  );
  return report(items, { mode: 'report-only' });
}

describe('the report files, written in pieces', () => {
  it('lay out JSON exactly as JSON.stringify(report, null, 2) does', () => {
    fc.assert(
      fc.property(reportLike, (value) => {
        const pieces = [...reportJsonPieces(value as unknown as Report)].join('');
        expect(pieces).toBe(`${JSON.stringify(value, null, 2)}\n`);
        expect(JSON.parse(pieces)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
    expect([...reportJsonPieces({} as Report)].join('')).toBe('{}\n');
  });

  it('write report.json and report.md whole, across many write batches', async () => {
    const dir = tempDir('aj-report-files-');
    const report = bigReport(3000);
    await writeReport(dir, report);
    const written = readFileSync(path.join(dir, 'report.json'));
    expect(written.length).toBeGreaterThan(4 * 64 * 1024);
    expect(written.equals(Buffer.from(`${JSON.stringify(report, null, 2)}\n`))).toBe(true);
    // The bytes Node writes for the whole string (a lone surrogate becomes U+FFFD in both).
    expect(readFileSync(path.join(dir, 'report.md')).equals(Buffer.from(renderMarkdown(report)))).toBe(true);
  });
});
