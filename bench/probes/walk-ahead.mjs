// The pass's walk ahead (src/safety/walk/tree-cache.ts): GNU find walks the folders beside this process,
// which walks the last ones itself while it waits, as a pass does. Each listed folder's children
// are the folders handed to it (a pass hands it items, not their parents); the children themselves
// are counted here, so the sums equal those of the walk of each listed folder.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createTreeCache } from '../../dist/safety/walk/tree-cache.js';

const roots = JSON.parse(readFileSync(process.argv[2], 'utf8'));

const started = performance.now();
let entries = 0;
let bytes = 0;
const items = [];
for (const root of roots) {
  for (const name of readdirSync(root)) {
    const child = path.join(root, name);
    const stats = lstatSync(child);
    entries += 1;
    if (stats.isDirectory()) items.push(child);
    else bytes += stats.size;
  }
}
const measure = createTreeCache({ walkAhead: true });
measure.ahead(items);
for (const item of items) {
  await measure.whenMeasured([item]);
  const facts = measure(item);
  if (facts.error) throw new Error(facts.error);
  entries += facts.entries;
  bytes += facts.bytes;
}
measure.close();
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ entries, bytes, ms, folders: items.length }));
