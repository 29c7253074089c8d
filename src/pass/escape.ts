import type { ReportItem, RootStatus } from '../model/types.js';
import { escapeBytes } from '../safety/fs/names.js';

/**
 * The report's, audit's and log's spelling of a name that is not UTF-8: each such byte as `\xNN`
 * (src/safety/fs/names.ts). Applied where text leaves the process, so the report, its Markdown, the
 * audit lines and the logs say the same.
 */
export function escapedItem(item: ReportItem): ReportItem {
  const escaped: ReportItem = { ...item, path: escapedPath(item.path), detail: escapeBytes(item.detail) };
  if (item.claimedBy) escaped.claimedBy = item.claimedBy.map((claim) => ({ ...claim, path: escapedPath(claim.path) }));
  return escaped;
}

const escapedPath = (p: string | null): string | null => (p === null ? null : escapeBytes(p));

export function escapedRoot(root: RootStatus): RootStatus {
  const escaped = { ...root, root: escapeBytes(root.root) };
  if (root.error !== undefined) escaped.error = escapeBytes(root.error);
  if (root.warning !== undefined) escaped.warning = escapeBytes(root.warning);
  return escaped;
}

/** A log line's fields: strings, and lists of strings, with their bytes escaped. */
export function escapedLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  const escaped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') escaped[key] = escapeBytes(value);
    else if (Array.isArray(value))
      escaped[key] = value.map((entry: unknown) => (typeof entry === 'string' ? escapeBytes(entry) : entry));
    else escaped[key] = value;
  }
  return escaped;
}
