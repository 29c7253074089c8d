/**
 * Why the pods that delete set hostPID: a pass in a PID namespace of its own, with its own /proc
 * (a container, or a pod without hostPID such as the report-only overlay), cannot see the host's
 * agents, and so refuses every deletion with `liveness-unknown`. The same sandbox, passed over
 * from the host's PID namespace, is deleted. Real namespaces (unshare, as root), the real CLI.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { beatKiloLocks } from '../helpers/kilo-heartbeats.js';
import { tempDir } from '../helpers/temp.js';
import { isInside } from '../../src/safety/inside.js';

interface Report {
  mode: string;
  processCheck: { visible?: boolean };
  items: Array<{ path: string | null; verdict: string; reason: string }>;
  totals: { deleted: number };
}

/** Runs the CLI in a new PID namespace with a /proc of its own, as a container's. */
function inOwnPidNamespace(args: string[]) {
  return spawnSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, CLI, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
}

function onHost(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('a pass without the host PID namespace', () => {
  it('refuses every deletion with liveness-unknown and changes nothing; from the host the same items are deleted', () => {
    const sandbox = path.join(tempDir('aj-pidns-'), 'sandbox');
    // The demo builds a sandbox of every provider and runs a report-only and a real pass on it.
    const demo = inOwnPidNamespace(['demo', '--dir', sandbox]);
    expect(demo.status, demo.stderr).toBe(0);
    const contained = JSON.parse(readFileSync(path.join(sandbox, 'report/report.json'), 'utf8')) as Report;
    expect(contained.mode).toBe('delete');
    expect(contained.totals.deleted).toBe(0);
    expect(contained.processCheck.visible).toBe(false);

    // The Kilo process the sandbox stands for still holds its lock however long the demo took.
    expect(beatKiloLocks(sandbox)).toBeGreaterThan(0);
    const config = path.join(sandbox, 'agent-janitor.yaml');
    const before = inventory(sandbox, { exclude: [path.join(sandbox, 'report')] });
    const hidden = inOwnPidNamespace(['run', '--report-only', '--json', '--config', config]);
    expect(hidden.status, hidden.stderr).toBe(0);
    const hiddenReport = JSON.parse(hidden.stdout) as Report;
    const changes = diffInventories(before, inventory(sandbox, { exclude: [path.join(sandbox, 'report')] }));
    // Reading a WAL-mode database, even read-only, touches the -shm file SQLite itself manages.
    const sqliteOwn = (entry: string) => /\.db-(shm|wal)$/.test(entry);
    expect({ ...changes, changed: changes.changed.filter((entry) => !sqliteOwn(entry)) }).toEqual({
      removed: [],
      changed: [],
      added: [],
    });

    beatKiloLocks(sandbox);
    const seen = onHost(['run', '--report-only', '--json', '--config', config]);
    expect(seen.status, seen.stderr).toBe(0);
    const seenReport = JSON.parse(seen.stdout) as Report;
    const wouldDelete = seenReport.items.filter((item) => item.verdict === 'would-delete');
    expect(wouldDelete.length).toBeGreaterThan(0);
    // A provider that cannot see the processes itself (claude-code) refuses each session folder of
    // a project folder the host pass deletes whole: the item, or every item inside it, is refused.
    const sameOrInside = (report: Report, at: string | null) =>
      report.items.filter(
        (other) => other.path === at || (at !== null && other.path !== null && isInside(at, other.path)),
      );
    for (const item of wouldDelete) {
      for (const report of [hiddenReport, contained]) {
        const there = sameOrInside(report, item.path);
        expect(there.length, item.path ?? '').toBeGreaterThan(0);
        for (const each of there)
          expect(each, item.path ?? '').toMatchObject({ verdict: 'refused', reason: 'liveness-unknown' });
      }
    }
    expect(hiddenReport.items.some((item) => item.verdict === 'would-delete' || item.verdict === 'deleted')).toBe(
      false,
    );

    const deleted = onHost(['run', '--json', '--config', config]);
    expect(deleted.status, deleted.stderr).toBe(0);
    const after = inventory(sandbox, { exclude: [path.join(sandbox, 'report')] });
    for (const item of wouldDelete)
      expect(after.has(path.relative(sandbox, item.path as string)), item.path ?? '').toBe(false);
  }, 120_000);
});
