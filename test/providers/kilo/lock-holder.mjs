// The holder side of Kilo's snapshot lock, as a live Kilo process runs it: an atomic mkdir (0700),
// `heartbeat` and `meta.json` created exclusively, the heartbeat touched every second (Kilo: every
// 20 s) until SIGTERM, which releases the lock as Kilo does (removes the folder while meta.json
// still carries its token).
//
// usage: node lock-holder.mjs <lockDir> <ready-file>
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [lockDir, readyFile] = process.argv.slice(2);
mkdirSync(path.dirname(lockDir), { recursive: true });
mkdirSync(lockDir, { mode: 0o700 });
const token = randomUUID();
writeFileSync(path.join(lockDir, 'heartbeat'), '', { flag: 'wx' });
writeFileSync(
  path.join(lockDir, 'meta.json'),
  JSON.stringify({ token, pid: process.pid, hostname: os.hostname(), createdAt: new Date().toISOString() }),
  { flag: 'wx' },
);
const beat = setInterval(() => {
  const now = new Date();
  utimesSync(path.join(lockDir, 'heartbeat'), now, now);
}, 1_000);

process.on('SIGTERM', () => {
  clearInterval(beat);
  try {
    if (JSON.parse(readFileSync(path.join(lockDir, 'meta.json'), 'utf8')).token === token)
      rmSync(lockDir, { recursive: true, force: true });
  } finally {
    process.exit(0);
  }
});
writeFileSync(readyFile, String(process.pid));
