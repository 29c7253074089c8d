// What a delete pass does on disk for each dead folder, without the judging around it: one walk
// (size and newest write), the quarantine rename, the remove.
import { readFileSync } from 'node:fs';
import { moveToQuarantine } from '../../dist/safety/quarantine.js';
import { removeTree } from '../../dist/safety/remove.js';
import { measureTree } from '../../dist/safety/walk.js';

const started = performance.now();
let removed = 0;
for (const folder of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const facts = measureTree(folder);
  if (facts.error) throw new Error(facts.error);
  removed += removeTree(moveToQuarantine(folder)).removed;
}
process.stdout.write(JSON.stringify({ removed, ms: performance.now() - started }));
