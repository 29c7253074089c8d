import path from 'node:path';
import * as z from 'zod';
import type { PreviousFootprint } from '../model/footprint.js';
import type { Report, ReportItem } from '../model/types.js';
import { appendPrivateFile, mkdir, writeFileAtomic } from '../safety/fs/write.js';
import { readFileOrNull } from '../safety/fs/read.js';
import { escapedItem } from '../pass/escape.js';
import { markdownLines } from './markdown.js';
import { reportJsonPieces } from './report-json.js';

export const REPORT_JSON = 'report.json';
const REPORT_MD = 'report.md';
const AUDIT_LOG = 'audit.jsonl';

/**
 * The report folder and its files name other users' paths, commits and command lines: the folder is
 * made 0750 and the files written 0640, whoever runs the pass (its group may read them, no one else).
 */
const FOLDER_MODE = 0o750;
const FILE_MODE = 0o640;

/** Replaces report.json and report.md atomically. */
export async function writeReport(reportDir: string, report: Report): Promise<void> {
  await mkdir(reportDir, FOLDER_MODE);
  await writeFileAtomic(path.join(reportDir, REPORT_JSON), reportJsonPieces(report), FILE_MODE);
  await writeFileAtomic(path.join(reportDir, REPORT_MD), linesOf(markdownLines(report)), FILE_MODE);
}

/** Appends one deletion (or checkpoint) to audit.jsonl, as one write of one line. */
export async function appendAudit(reportDir: string, item: ReportItem, time: Date): Promise<void> {
  await mkdir(reportDir, FOLDER_MODE);
  const shown = escapedItem(item);
  const line = JSON.stringify({
    time: time.toISOString(),
    provider: item.provider,
    kind: item.kind,
    path: shown.path,
    bytes: item.bytes,
    reason: item.reason,
    // A checkpoint removes no file: the sizes of the log and its database, before and after, say what it did.
    ...(item.checkpoint ? { checkpoint: item.checkpoint } : {}),
  });
  await appendPrivateFile(path.join(reportDir, AUDIT_LOG), `${line}\n`, FILE_MODE);
}

/**
 * The footprint of the report.json a pass is about to replace, for its growth; null where there is
 * none to compare with: no report yet, one that cannot be read or parsed, or one without a footprint.
 */
export async function readPreviousFootprint(reportDir: string): Promise<PreviousFootprint | null> {
  let text: string | null;
  try {
    text = await readFileOrNull(path.join(reportDir, REPORT_JSON));
  } catch {
    return null;
  }
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = previousReport.safeParse(value);
  return parsed.success ? parsed.data.footprint : null;
}

/** What growth reads of a previous report: each entry's provider, category and bytes. */
const previousReport = z.looseObject({
  footprint: z.array(z.looseObject({ provider: z.string(), category: z.string(), bytes: z.number() })),
});

export async function readLatestReport(reportDir: string): Promise<{ json: string; markdown: string | null } | null> {
  const json = await readFileOrNull(path.join(reportDir, REPORT_JSON));
  if (json === null) return null;
  return { json, markdown: await readFileOrNull(path.join(reportDir, REPORT_MD)) };
}

function* linesOf(lines: string[]): Generator<string> {
  for (const line of lines) yield `${line}\n`;
}
