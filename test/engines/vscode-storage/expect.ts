import path from 'node:path';
import { expect } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { diffInventories, type Entry } from '../../helpers/inventory.js';

/**
 * Between two inventories of `root`, exactly the given folders went away with everything in them,
 * and nothing else changed but the folders that held them (and the files SQLite keeps beside a
 * WAL database a reader opened).
 */
export function expectOnlyRemoved(
  root: string,
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  removed: string[],
): void {
  const relative = (p: string) => path.relative(root, p);
  const gone = removed.map(relative);
  const inside = (key: string) => gone.some((folder) => key === folder || key.startsWith(`${folder}${path.sep}`));
  const sidecar = (key: string) => /\.db-(wal|shm)$/.test(key);
  const diff = diffInventories(before, after);
  expect(diff.removed.filter((key) => !inside(key) && !sidecar(key))).toEqual([]);
  for (const folder of gone) expect(diff.removed).toContain(folder);
  const parents = new Set(gone.map((key) => path.dirname(key)));
  expect(diff.changed.filter((key) => !parents.has(key) && !sidecar(key))).toEqual([]);
  expect(diff.added.filter((key) => !sidecar(key))).toEqual([]);
}

/** Nothing in the tree changed at all (SQLite's sidecars aside). */
export function expectUnchanged(before: Map<string, Entry>, after: Map<string, Entry>): void {
  const diff = diffInventories(before, after);
  const real = (keys: string[]) => keys.filter((key) => !/\.db-(wal|shm)$/.test(key));
  expect({ removed: real(diff.removed), changed: real(diff.changed), added: real(diff.added) }).toEqual({
    removed: [],
    changed: [],
    added: [],
  });
}

/** `kind verdict reason` of every item, sorted: a whole report at a glance. */
export function verdictsOf(report: Report): string[] {
  return report.items.map((item) => `${item.kind} ${item.verdict} ${item.reason}`).sort();
}
