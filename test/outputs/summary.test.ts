import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { formatBytes } from '../../src/util/format.js';
import { world } from '../adversarial/support/watchfire-world.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freePort } from '../metrics/servers.js';

const isRoot = process.geteuid?.() === 0;

/** Seven dead Watchfire sessions of seven sizes, the largest last made. */
function sevenSessions() {
  const w = world();
  const sizes = [5_000, 70_000, 20_000, 300_000, 1_000, 150_000, 9_000];
  const homes = sizes.map((bytes, k) =>
    w.session(`gone-${k}:chat`, { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': 'x'.repeat(bytes) }),
  );
  w.age();
  return { w, homes };
}

/** The lines a summary gives its largest items, each as `<bytes>  <path> (<reason>)`. */
function largestOf(report: Report, verdict: 'deleted' | 'would-delete'): string[] {
  const items = report.items.filter((item) => item.verdict === verdict).sort((a, b) => b.bytes - a.bytes);
  const shown = items.slice(0, 5);
  const width = Math.max(...shown.map((item) => formatBytes(item.bytes).length));
  return shown.map((item) => `  ${formatBytes(item.bytes).padStart(width)}  ${item.path} (${item.reason})`);
}

describe('the summary of a pass names its largest items, then the totals', () => {
  it('the five largest it would delete, then the five largest it deleted, each with bytes, path and reason', async () => {
    const { w } = sevenSessions();
    const dry = await runCli(['run', '--config', w.configFile, '--report-only', '--log-level', 'warn']);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8')) as Report;
    const dryLines = dry.stdout.split('\n');
    expect(dryLines.slice(0, 7)).toEqual([
      'would delete, largest first (5 of 7):',
      ...largestOf(planned, 'would-delete'),
      expect.stringMatching(/^agent-janitor \(report only\): would reclaim .* \(7 items\)$/),
    ]);
    // Largest first: 300,000 bytes of transcript and its prompt.
    expect(dryLines[1]).toMatch(/^ {2}293\.\d KiB {2}\/.*\/gone-3:chat \(project-deleted\)$/);

    const real = await runCli(['run', '--config', w.configFile, '--log-level', 'warn']);
    expect(real.code, real.stderr).toBe(0);
    const done = JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8')) as Report;
    expect(real.stdout.split('\n').slice(0, 7)).toEqual([
      'deleted, largest first (5 of 7):',
      ...largestOf(done, 'deleted'),
      expect.stringMatching(/^agent-janitor: reclaimed .* \(7 deleted\)$/),
    ]);
    // A pass with nothing to delete names nothing, and says its totals first.
    const again = await runCli(['run', '--config', w.configFile, '--log-level', 'warn']);
    expect(again.stdout.split('\n')[0]).toBe('agent-janitor: reclaimed 0 B (0 deleted)');
  });
});

describe('a metrics output that failed is a line of the summary, and the reason the exit is 1', () => {
  it('a Pushgateway that is down', async () => {
    const { w } = sevenSessions();
    const down = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(['run', '--config', w.configFile, '--pushgateway', down, '--log-level', 'fatal']);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('  kept 0, refused 0, unfinished 0, failed 0');
    const said = lines.filter((line) => line.startsWith('  metrics not delivered'));
    expect(said).toEqual([
      expect.stringMatching(
        new RegExp(
          `^ {2}metrics not delivered, so the exit is 1: cannot push metrics to ${down}/metrics/job/agent-janitor/instance/`,
        ),
      ),
    ]);
    // Before the line that says where the report is.
    expect(lines.indexOf(said[0] as string)).toBeLessThan(lines.findIndex((line) => line.startsWith('  report: ')));
  });

  it.runIf(isRoot)('a metrics file whose disk is full when the pass writes it', async () => {
    const { w } = sevenSessions();
    const mount = path.join(tempDir('aj-full-'), 'metrics');
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount]);
    try {
      try {
        writeFileSync(path.join(mount, 'filler'), Buffer.alloc(1024 * 1024));
      } catch {
        // Full: what the pass finds after its checks, which only look.
      }
      const textfile = path.join(mount, 'agent_janitor.prom');
      const result = await runCli([
        'run',
        '--config',
        w.configFile,
        '--metrics-file',
        textfile,
        '--log-level',
        'fatal',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('  kept 0, refused 0, unfinished 0, failed 0\n');
      expect(result.stdout).toMatch(
        new RegExp(`\\n {2}metrics not delivered, so the exit is 1: cannot write the metrics file ${textfile}: .+\\n`),
      );
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});
