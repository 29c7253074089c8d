// The floor for any Node walk: readdirSync and lstatSync over absolute paths, nothing else (no
// link or swap checks, no cursor). Run as its own process, like du.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';

const started = performance.now();
let entries = 0;
let bytes = 0;
for (const root of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const folders = [root];
  while (folders.length > 0) {
    const dir = folders.pop();
    for (const name of readdirSync(dir)) {
      const full = `${dir}/${name}`;
      const stats = lstatSync(full);
      entries += 1;
      if (stats.isDirectory()) folders.push(full);
      else bytes += stats.size;
    }
  }
}
process.stdout.write(JSON.stringify({ entries, bytes, ms: performance.now() - started }));
