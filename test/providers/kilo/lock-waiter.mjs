// The waiter side of Kilo's snapshot lock, as a Kilo process runs it: wait for the lock folder to
// appear (someone else took it), then try to take it with an atomic mkdir until it is free,
// breaking it only when its heartbeat is older than 60 s. Once it holds the lock it records what
// it saw, releases it and exits.
//
// usage: node lock-waiter.mjs <lockDir> <gitdir> <result.json> <ready-file>
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const [lockDir, gitdir, resultFile, readyFile] = process.argv.slice(2);
const STALE_MS = 60_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const deadline = Date.now() + 60_000;

const seen = { holders: [], heldChecks: 0, gitdirWhileHeld: [] };
writeFileSync(readyFile, String(process.pid));

while (!existsSync(lockDir)) {
  if (Date.now() > deadline) finish({ error: 'the lock never appeared' });
  await sleep(1);
}

function stale() {
  for (const name of ['heartbeat', 'meta.json']) {
    try {
      return Date.now() - statSync(`${lockDir}/${name}`).mtimeMs > STALE_MS;
    } catch {
      // Not written yet: look at the next witness.
    }
  }
  try {
    return Date.now() - statSync(lockDir).mtimeMs > STALE_MS;
  } catch {
    return false;
  }
}

for (;;) {
  if (Date.now() > deadline) finish({ error: 'timed out waiting for the lock' });
  try {
    mkdirSync(lockDir, { mode: 0o700 });
    break;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  seen.heldChecks += 1;
  seen.gitdirWhileHeld.push(existsSync(gitdir));
  try {
    const meta = JSON.parse(readFileSync(`${lockDir}/meta.json`, 'utf8'));
    if (!seen.holders.some((holder) => holder.token === meta.token)) seen.holders.push(meta);
  } catch {
    // The holder is between its mkdir and its meta.json.
  }
  if (stale()) seen.sawStale = true;
  await sleep(2);
}

const token = randomUUID();
writeFileSync(`${lockDir}/heartbeat`, '', { flag: 'wx' });
writeFileSync(
  `${lockDir}/meta.json`,
  JSON.stringify({ token, pid: process.pid, hostname: os.hostname(), createdAt: new Date().toISOString() }),
  { flag: 'wx' },
);
const gitdirWhenAcquired = existsSync(gitdir);
const meta = JSON.parse(readFileSync(`${lockDir}/meta.json`, 'utf8'));
if (meta.token === token) rmSync(lockDir, { recursive: true, force: true });
finish({ acquired: true, gitdirWhenAcquired });

function finish(result) {
  writeFileSync(resultFile, JSON.stringify({ ...seen, ...result }));
  process.exit(result.error ? 1 : 0);
}
