// agent-janitor's own walk (CwdCursor, swap checks, same filesystem) over each listed folder.
// With --warm, the list is walked once untimed, then three times, and the fastest of those is
// answered: a constant (the JIT compiling the walk, the young generation growing) and the other
// work of a shared machine, which only ever adds time, are kept out of a comparison of sizes.
import { readFileSync } from 'node:fs';
import { measureTree } from '../../dist/safety/walk/walk.js';

const roots = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const warm = process.argv.includes('--warm');

function walkAll() {
  const started = performance.now();
  let entries = 0;
  let bytes = 0;
  for (const root of roots) {
    const facts = measureTree(root);
    if (facts.error) throw new Error(facts.error);
    entries += facts.entries;
    bytes += facts.bytes;
  }
  return { entries, bytes, ms: performance.now() - started };
}

const first = walkAll();
let result = first;
if (warm) {
  const timed = [walkAll(), walkAll(), walkAll()];
  result = { ...timed.reduce((best, walk) => (walk.ms < best.ms ? walk : best)), coldMs: first.ms };
}
process.stdout.write(JSON.stringify(result));
