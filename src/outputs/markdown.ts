import { isHeld } from '../model/held.js';
import { largestFirst } from '../model/footprint.js';
import type { FootprintEntry, ProviderName, Report, ReportItem } from '../model/types.js';
import { formatBytes, formatCount, formatGrowth, formatItems } from '../util/format.js';

/**
 * report.md, the human summary: totals, then unfinished work first, then refusals, then deletions.
 * One string per line, so that the file is written a batch at a time, never made whole.
 */
export function markdownLines(report: Report): string[] {
  const t = report.totals;
  const lines: string[] = [
    `# agent-janitor report (${report.mode})`,
    '',
    `Host \`${report.host}\`, ${report.startedAt} to ${report.finishedAt}.`,
    '',
    report.mode === 'delete'
      ? `**Reclaimed ${formatBytes(t.reclaimedBytes)}** (${formatItems(t.deleted)}).`
      : `**Would reclaim ${formatBytes(t.wouldReclaimBytes)}** (${formatItems(t.wouldDelete)}).`,
    '',
    ...byProvider(report),
    '| reclaimed | would reclaim | deleted | would delete | kept | refused | unfinished | failed |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${formatBytes(t.reclaimedBytes)} | ${formatBytes(t.wouldReclaimBytes)} | ${t.deleted} | ${t.wouldDelete} | ${t.kept} | ${t.refused} | ${t.unfinished} | ${t.failed} |`,
    '',
    `Processes inspected: ${report.processCheck.inspected}, uninspectable: ${report.processCheck.uninspectable}` +
      (report.processCheck.visible
        ? '.'
        : ` (processes are not visible from here${report.processCheck.blindBecause ? `: ${report.processCheck.blindBecause}` : ''}; so nothing was deleted).`),
    '',
  ];
  const broken = report.providers.filter((p) => !p.ok);
  if (broken.length > 0) {
    lines.push('## Providers that could not be reconciled', '');
    // A root or an error may hold a backtick or a newline: each stays one list line.
    for (const p of broken) lines.push(`- **${p.provider}** \`${cell(p.root)}\`: ${cell(p.error ?? 'unknown error')}`);
    lines.push('');
  }
  const warnings = new Set(report.providers.flatMap((p) => (p.warning ? [`- ${cell(p.warning)}`] : [])));
  if (warnings.size > 0) lines.push('## Warnings', '', ...warnings, '');
  lines.push(...footprintTable(report.footprint));
  section(
    lines,
    'Unfinished work: a person must decide',
    report.items.filter((i) => i.verdict === 'unfinished'),
  );
  section(
    lines,
    'Failed deletions',
    report.items.filter((i) => i.verdict === 'failed'),
  );
  section(
    lines,
    'Refused',
    report.items.filter((i) => i.verdict === 'refused'),
  );
  section(
    lines,
    report.mode === 'delete' ? 'Deleted' : 'Would delete',
    report.items.filter((i) => i.verdict === 'deleted' || i.verdict === 'would-delete'),
  );
  section(
    lines,
    'Kept',
    report.items.filter((i) => i.verdict === 'kept'),
  );
  return lines;
}

/**
 * What each provider freed (or would free) and what live processes keep on disk, one row per
 * provider with any item; nothing when the pass saw no item.
 */
function byProvider(report: Report): string[] {
  const freeing = report.mode === 'delete' ? 'deleted' : 'would-delete';
  const rows = new Map<ProviderName, { bytes: number; items: number; held: number }>();
  for (const item of report.items) {
    const row = rows.get(item.provider) ?? { bytes: 0, items: 0, held: 0 };
    if (item.verdict === freeing) {
      row.bytes += item.bytes;
      row.items += 1;
    }
    if (isHeld(item)) row.held += item.bytes;
    rows.set(item.provider, row);
  }
  if (rows.size === 0) return [];
  const title = report.mode === 'delete' ? 'reclaimed' : 'would reclaim';
  const lines = [`| provider | ${title} | items | held by live processes |`, '| --- | --- | --- | --- |'];
  for (const [provider, row] of rows)
    lines.push(`| ${provider} | ${formatBytes(row.bytes)} | ${formatCount(row.items)} | ${formatBytes(row.held)} |`);
  lines.push('');
  return lines;
}

/**
 * Where each tool's disk goes, largest first: one row per provider and category, with its growth
 * since the previous report and its largest file.
 */
function footprintTable(footprint: readonly FootprintEntry[] | undefined): string[] {
  if (!footprint || footprint.length === 0) return [];
  const lines = [
    "## Footprint: where each tool's disk goes",
    '',
    '| provider | category | size | files | growth | largest file |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const entry of largestFirst(footprint)) {
    const growth = entry.growthBytes === undefined ? '-' : formatGrowth(entry.growthBytes);
    const largest = entry.largest ? `${cell(entry.largest.path)} (${formatBytes(entry.largest.bytes)})` : '-';
    lines.push(
      `| ${entry.provider} | ${entry.category} | ${formatBytes(entry.bytes)} | ${formatCount(entry.files)} | ${growth} | ${largest} |`,
    );
  }
  lines.push('');
  return lines;
}

/** The same summary as one string, each line ended by a newline. */
export function renderMarkdown(report: Report): string {
  return `${markdownLines(report).join('\n')}\n`;
}

function section(lines: string[], title: string, items: ReportItem[]): void {
  if (items.length === 0) return;
  lines.push(`## ${title} (${items.length})`, '');
  lines.push('| provider | kind | path | size | reason | detail |', '| --- | --- | --- | --- | --- | --- |');
  for (const item of items) {
    lines.push(
      `| ${item.provider} | ${item.kind} | ${cell(item.path ?? '-')} | ${formatBytes(item.bytes)} | ${item.reason} | ${cell(item.detail)} |`,
    );
  }
  lines.push('');
}

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/`/g, "'");
}
