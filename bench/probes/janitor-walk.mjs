// agent-janitor's own walk (CwdCursor, swap checks, same filesystem) over each listed folder.
import { readFileSync } from 'node:fs';
import { measureTree } from '../../dist/safety/walk.js';

const started = performance.now();
let entries = 0;
let bytes = 0;
for (const root of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const facts = measureTree(root);
  if (facts.error) throw new Error(facts.error);
  entries += facts.entries;
  bytes += facts.bytes;
}
process.stdout.write(JSON.stringify({ entries, bytes, ms: performance.now() - started }));
