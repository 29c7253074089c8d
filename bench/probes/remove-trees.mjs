// What a delete pass does on disk for each dead folder, without the judging around it: one walk
// (size and newest write), the quarantine rename, the last proof (a walk of the quarantined tree:
// ctime, owner, mounts; no /proc here), the remove.
import { readFileSync } from 'node:fs';
import { takeLastProof } from '../../dist/safety/removal/last-proof.js';
import { moveToQuarantine } from '../../dist/safety/removal/quarantine.js';
import { removeTree } from '../../dist/safety/removal/remove.js';
import { CLOCK_MARGIN_MS } from '../../dist/safety/since.js';
import { measureTree } from '../../dist/safety/walk/walk.js';

const started = performance.now();
// As a pass does: the moment read before any evidence, a margin before the first of it.
const sinceMs = Date.now();
await new Promise((resolve) => setTimeout(resolve, CLOCK_MARGIN_MS + 1));
let removed = 0;
for (const folder of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const facts = measureTree(folder);
  if (facts.error) throw new Error(facts.error);
  const doomed = moveToQuarantine(folder);
  const proof = takeLastProof({ tree: doomed, judgedAt: folder, renamed: true, ownerUid: facts.uid }, sinceMs, null);
  if (proof.stop) throw new Error(`${folder}: ${proof.stop.detail}`);
  removed += removeTree(doomed).removed;
}
process.stdout.write(JSON.stringify({ removed, ms: performance.now() - started }));
