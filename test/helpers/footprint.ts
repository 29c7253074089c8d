import { lstatSync, readdirSync } from 'node:fs';
import type { FootprintCategory, FootprintEntry, ProviderName, Report } from '../../src/model/types.js';
import { spelled } from './bytes.js';

/**
 * The footprint a test expects, worked out on its own: every file under some folders, listed by a
 * walk of the test's (Node's readdir and lstat, names as bytes, no link followed), each put in a
 * provider's category by the test's own rules, summed, with the largest file of each.
 */

export interface FileOnDisk {
  path: string;
  bytes: number;
  dev: number;
  ino: number;
}

/** Every entry under `root` that is not a folder (the root too, when it is one). */
export function filesUnder(root: string): FileOnDisk[] {
  const files: FileOnDisk[] = [];
  const visit = (at: Buffer) => {
    const stats = lstatSync(at);
    if (!stats.isDirectory()) {
      files.push({ path: spelled(at), bytes: stats.size, dev: stats.dev, ino: stats.ino });
      return;
    }
    for (const name of readdirSync(at, { encoding: 'buffer' })) visit(Buffer.concat([at, Buffer.from('/'), name]));
  };
  visit(Buffer.from(root));
  return files;
}

/** A place of the test's rules: a path pattern (`*` one name), whose files are this provider's category. */
export interface Rule {
  pattern: string;
  provider: ProviderName;
  category: FootprintCategory;
}

const depthOf = (pattern: string) => pattern.split('/').length;

function matcher(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((part) =>
      part
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '[^/]*')
        .replaceAll('?', '[^/]'),
    )
    .join('/');
  return new RegExp(`^${source}(/|$)`);
}

/**
 * Where a file's bytes go: into `scratch` when it lies in an item of a kind a pass may delete;
 * else by the deepest place of the rules that holds it; else by `fallback` (an item of another
 * kind in no place); else nowhere (not a tool's state).
 */
export function classifier(
  rules: readonly Rule[],
  scratch: ReadonlyArray<{ path: string; provider: ProviderName }>,
  fallback: readonly Rule[] = [],
): (file: string) => { provider: ProviderName; category: FootprintCategory } | null {
  const compiled = rules
    .map((rule) => ({ rule, regex: matcher(rule.pattern), depth: depthOf(rule.pattern) }))
    .sort((a, b) => b.depth - a.depth);
  const fallbacks = fallback.map((rule) => ({ rule, regex: matcher(rule.pattern) }));
  return (file) => {
    const item = scratch.find((each) => file === each.path || file.startsWith(`${each.path}/`));
    if (item) return { provider: item.provider, category: 'scratch' };
    const place = compiled.find((each) => each.regex.test(file)) ?? fallbacks.find((each) => each.regex.test(file));
    return place ? { provider: place.rule.provider, category: place.rule.category } : null;
  };
}

/** The footprint of these files as the classifier puts them: bytes, files and the largest, by provider and category. */
export function expectedFootprint(
  files: readonly FileOnDisk[],
  classify: (file: string) => { provider: ProviderName; category: FootprintCategory } | null,
): Map<string, Omit<FootprintEntry, 'growthBytes'>> {
  const out = new Map<string, Omit<FootprintEntry, 'growthBytes'> & { largestFile?: FileOnDisk }>();
  for (const file of files) {
    const where = classify(file.path);
    if (!where) continue;
    const key = `${where.provider} ${where.category}`;
    const entry = out.get(key) ?? { ...where, bytes: 0, files: 0, largest: null };
    entry.bytes += file.bytes;
    entry.files += 1;
    const best = entry.largestFile;
    if (
      !best ||
      file.bytes > best.bytes ||
      (file.bytes === best.bytes && (file.dev < best.dev || (file.dev === best.dev && file.ino < best.ino)))
    ) {
      entry.largestFile = file;
      entry.largest = { path: file.path, bytes: file.bytes };
    }
    out.set(key, entry);
  }
  return new Map([...out].map(([key, { largestFile: _, ...entry }]) => [key, entry]));
}

/** The report's footprint in the same shape (growth left out), entries of no file left out. */
export function reportedFootprint(report: Report): Map<string, Omit<FootprintEntry, 'growthBytes'>> {
  return new Map(
    (report.footprint ?? [])
      .filter((entry) => entry.files > 0)
      .map(({ growthBytes: _, ...entry }) => [`${entry.provider} ${entry.category}`, entry]),
  );
}
