import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './measure.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = path.join(REPO, 'dist', 'cli.js');
const PROBES = path.join(REPO, 'bench', 'probes');

/**
 * One `agent-janitor run` as its own process, the way cron or systemd starts it; answers the
 * measurement and the report it wrote.
 */
export async function runJanitor(fleet, { reportOnly, extra = [] }) {
  const reportDir = mkdtempSync(path.join(fleet.dir, 'reports', reportOnly ? 'report-only-' : 'delete-'));
  const args = [
    CLI,
    'run',
    '--config',
    fleet.config,
    '--report-dir',
    reportDir,
    ...(reportOnly ? ['--report-only'] : []),
    ...extra,
  ];
  const result = await measure(process.execPath, args, { allowFailure: true });
  if (result.code !== 0)
    throw new Error(
      `agent-janitor run exited ${result.code}: ${result.stderr.trim().split('\n').slice(-2).join(' | ')}`,
    );
  const report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8'));
  result.passMs = Date.parse(report.finishedAt) - Date.parse(report.startedAt);
  result.report = report;
  result.proof = lastProofOf(result.stderr);
  return result;
}

/**
 * What the executor's last proofs cost in a deleting pass, from its log line (`last proofs taken`,
 * pino's JSON on stderr): the items and entries walked again, and the milliseconds it took.
 */
function lastProofOf(stderr) {
  for (const line of stderr.split('\n')) {
    if (!line.includes('"last proofs taken"')) continue;
    try {
      const { items, entries, ms } = JSON.parse(line);
      return { items, entries, ms };
    } catch {
      // Not a log line of ours.
    }
  }
  return null;
}

/** Runs one of bench/probes/*.mjs over a list of paths; answers the measurement and what it printed. */
export async function runProbe(fleet, probe, paths, label, extra = []) {
  const list = path.join(fleet.dir, 'lists', `${label}.json`);
  writeFileSync(list, JSON.stringify(paths));
  const result = await measure(process.execPath, [path.join(PROBES, probe), list, ...extra], { capture: true });
  result.printed = JSON.parse(result.stdout);
  return result;
}

export function countVerdicts(report) {
  const counts = {};
  for (const item of report.items) counts[item.verdict] = (counts[item.verdict] ?? 0) + 1;
  return counts;
}
