import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/outputs/markdown.js';
import { item, report } from '../helpers/report-fixture.js';

const ITEMS = [
  item({ verdict: 'kept', path: '/k' }),
  item({ verdict: 'deleted', path: '/d', bytes: 3 * 1024 ** 3, reason: 'project-deleted' }),
  item({ verdict: 'refused', path: '/r', reason: 'in-use' }),
  item({ verdict: 'unfinished', path: '/u', reason: 'uncommitted-changes' }),
];

describe('the Markdown report', () => {
  it('opens with the mode, host, times and the totals row', () => {
    const lines = renderMarkdown(report(ITEMS)).split('\n');
    expect(lines[0]).toBe('# agent-janitor report (delete)');
    expect(lines).toContain('Host `build-7`, 2026-11-30T06:00:00.000Z to 2026-11-30T06:00:04.000Z.');
    expect(lines).toContain('| 3.0 GiB | 0 B | 1 | 0 | 1 | 1 | 1 | 0 |');
    expect(lines).toContain('Processes inspected: 312, uninspectable: 2.');
  });

  it('leads with what the pass freed, or would free, and by provider with what live processes hold', () => {
    const deleting = renderMarkdown(report(ITEMS)).split('\n');
    expect(deleting[4]).toBe('**Reclaimed 3.0 GiB** (1 item).');
    expect(deleting).toContain('| provider | reclaimed | items | held by live processes |');
    expect(deleting).toContain('| watchfire | 3.0 GiB | 1 | 2.0 KiB |');

    const planned = [
      item({ verdict: 'would-delete', path: '/a', bytes: 200 * 1024 ** 3 }),
      item({ verdict: 'would-delete', path: '/b', bytes: 12.4 * 1024 ** 3 }),
      item({ provider: 'kilo', kind: 'checkpoint-repo', verdict: 'refused', reason: 'in-use', bytes: 1024 ** 4 }),
      item({ provider: 'kilo', kind: 'checkpoint-repo', verdict: 'kept', reason: 'worktree-present' }),
    ];
    const totals = { ...report([]).totals, reclaimedBytes: 0, wouldReclaimBytes: 212.4 * 1024 ** 3, wouldDelete: 4972 };
    const dry = renderMarkdown(report(planned, { mode: 'report-only', totals })).split('\n');
    expect(dry[4]).toBe('**Would reclaim 212.4 GiB** (4,972 items).');
    expect(dry).toContain('| provider | would reclaim | items | held by live processes |');
    expect(dry).toContain('| watchfire | 212.4 GiB | 2 | 0 B |');
    expect(dry).toContain('| kilo | 0 B | 0 | 1.0 TiB |');
    expect(dry).toContain('| 0 B | 212.4 GiB | 1 | 4972 | 1 | 1 | 1 | 0 |');
  });

  it('says when processes are not visible', () => {
    const text = renderMarkdown(
      report(ITEMS, { processCheck: { mode: 'auto', inspected: 0, uninspectable: 0, visible: false } }),
    );
    expect(text).toContain(
      'Processes inspected: 0, uninspectable: 0 (processes are not visible from here; so nothing was deleted).',
    );
    const why = renderMarkdown(
      report(ITEMS, {
        processCheck: { mode: 'auto', inspected: 0, uninspectable: 0, visible: false, blindBecause: 'hidepid' },
      }),
    );
    expect(why).toContain(
      'Processes inspected: 0, uninspectable: 0 (processes are not visible from here: hidepid; so nothing was deleted).',
    );
  });

  it('puts unfinished work first, then refusals, then deletions, then what was kept', () => {
    const text = renderMarkdown(report(ITEMS));
    const order = [
      '## Unfinished work: a person must decide (1)',
      '## Refused (1)',
      '## Deleted (1)',
      '## Kept (1)',
    ].map((heading) => text.indexOf(heading));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('| watchfire | session-home | /d | 3.0 GiB | project-deleted | the session is running |');
  });

  it('titles planned deletions "Would delete" in a report-only pass, and omits empty sections', () => {
    const text = renderMarkdown(report([item({ verdict: 'would-delete', path: '/w' })], { mode: 'report-only' }));
    expect(text).toContain('# agent-janitor report (report-only)');
    expect(text).toContain('## Would delete (1)');
    expect(text).not.toContain('## Deleted');
    expect(text).not.toContain('## Kept');
    expect(text).not.toContain('## Refused');
  });

  it('lists failed deletions and providers that could not be reconciled', () => {
    const text = renderMarkdown(
      report([item({ verdict: 'failed', path: '/f', detail: 'EBUSY' })], {
        providers: [{ provider: 'kilo', root: '/home/ana', ok: false, error: 'kilo.db: database is locked' }],
      }),
    );
    expect(text).toContain('## Providers that could not be reconciled');
    expect(text).toContain('- **kilo** `/home/ana`: kilo.db: database is locked');
    expect(text).toContain('## Failed deletions (1)');
  });

  it('keeps every row one table row: pipes, backslashes, newlines and backticks are escaped', () => {
    const text = renderMarkdown(
      report([item({ verdict: 'refused', path: '/a|b\\c', detail: 'line one\r\nline `two` | three' })]),
    );
    expect(text).toContain("| /a\\|b\\\\c | 2.0 KiB | session-running | line one line 'two' \\| three |");
  });

  it('keeps a provider that could not be reconciled one list line, whatever its root and error hold', () => {
    const text = renderMarkdown(
      report([], {
        providers: [{ provider: 'owl', root: '/srv/`odd`', ok: false, error: 'settings.yaml: bad\nsecond line' }],
      }),
    );
    expect(text).toContain("- **owl** `/srv/'odd'`: settings.yaml: bad second line\n");
  });

  it('writes a dash for an item without a path', () => {
    expect(renderMarkdown(report([item({ path: null })]))).toContain('| watchfire | session-home | - | 2.0 KiB |');
  });
});
