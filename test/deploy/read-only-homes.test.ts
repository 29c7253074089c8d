/**
 * Why k8s/overlays/report-only-hostpid can mount the homes read-only and still say what k8s/base
 * would delete: a report-only pass in the host's PID namespace over homes mounted read-only gives
 * every item the verdict and reason it gives over the same homes writable, and changes nothing at
 * all (not even SQLite's -shm files). Real mount namespaces (unshare, as root), the real CLI.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { beatKiloLocks } from '../helpers/kilo-heartbeats.js';
import { tempDir } from '../helpers/temp.js';

interface Report {
  mode: string;
  processCheck: { visible?: boolean };
  items: Array<{ provider: string; kind: string; path: string | null; verdict: string; reason: string }>;
}

/** Exit code of the script below when the bind mount it made can still be written. */
const STILL_WRITABLE = 99;

/** Runs the CLI in a mount namespace of its own where `folder` is bind-mounted read-only onto itself. */
function withFolderReadOnly(folder: string, args: string[]) {
  const script = [
    'mount --bind "$1" "$1"',
    'mount -o remount,bind,ro "$1"',
    `if touch "$1/.write-probe" 2>/dev/null; then exit ${STILL_WRITABLE}; fi`,
    'shift',
    'exec "$@"',
  ].join(' && ');
  return spawnSync(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', folder, process.execPath, CLI, ...args],
    { encoding: 'utf8', timeout: 120_000 },
  );
}

const verdicts = (report: Report) =>
  new Map(report.items.map((item) => [`${item.provider} ${item.kind} ${item.path}`, `${item.verdict} ${item.reason}`]));

describe('a report-only pass over read-only homes', () => {
  it('gives every item the verdict a pass over the same homes writable gives, and changes nothing', () => {
    const sandbox = path.join(tempDir('aj-rohomes-'), 'sandbox');
    // The demo builds a sandbox of every provider; in a PID namespace of its own its real pass deletes nothing.
    const demo = spawnSync(
      'unshare',
      ['--pid', '--fork', '--mount-proc', process.execPath, CLI, 'demo', '--dir', sandbox],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(demo.status, demo.stderr).toBe(0);
    const config = path.join(sandbox, 'agent-janitor.yaml');
    const pass = (reportDir: string) => [
      'run',
      '--report-only',
      '--json',
      '--config',
      config,
      '--report-dir',
      reportDir,
    ];

    beatKiloLocks(sandbox);
    const writable = spawnSync(process.execPath, [CLI, ...pass(tempDir())], { encoding: 'utf8', timeout: 120_000 });
    expect(writable.status, writable.stderr).toBe(0);
    const writableReport = JSON.parse(writable.stdout) as Report;
    expect(writableReport.processCheck.visible).toBe(true);
    expect(writableReport.items.filter((item) => item.verdict === 'would-delete').length).toBeGreaterThan(0);

    beatKiloLocks(sandbox);
    const before = inventory(sandbox);
    const readOnly = withFolderReadOnly(sandbox, pass(tempDir()));
    expect(readOnly.status, readOnly.stderr).toBe(0);
    const readOnlyReport = JSON.parse(readOnly.stdout) as Report;
    expect(readOnlyReport.mode).toBe('report-only');
    expect(readOnlyReport.processCheck.visible).toBe(true);
    expect(verdicts(readOnlyReport)).toEqual(verdicts(writableReport));
    expect(diffInventories(before, inventory(sandbox))).toEqual({ removed: [], changed: [], added: [] });
  }, 240_000);

  it('the mount it makes is read-only: a write into it is refused', () => {
    const folder = tempDir('aj-rohomes-probe-');
    const probe = withFolderReadOnly(folder, ['--version']);
    expect(probe.status, probe.stderr).toBe(0);
    const writableMount = spawnSync(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount --bind "$1" "$1" && touch "$1/.write-probe"',
        'sh',
        folder,
      ],
      { encoding: 'utf8' },
    );
    expect(writableMount.status, writableMount.stderr).toBe(0);
  });
});
