import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { world } from '../adversarial/support/watchfire-world.js';
import { runCli } from '../helpers/cli.js';
import { diffInventories } from '../helpers/inventory.js';
import { spawnLiving, waitFor } from '../helpers/processes.js';

/**
 * What a person running `--report-only` by hand asks first: how much would a real pass free? The
 * summary, report.json's totals and report.md answer it; bytes a live process keeps are named too.
 */
describe('run --report-only says how much it would free, and what live processes hold', () => {
  it('states the bytes and items a deleting pass would free, and the deleting pass frees exactly that', async () => {
    const w = world();
    w.session('gone-a:chat', { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': 'x'.repeat(300_000) });
    w.session('gone-b:chat', { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': 'y'.repeat(200_000) });
    w.age();
    const before = w.snapshot();

    const dry = await runCli(['run', '--config', w.configFile, '--report-only', '--log-level', 'warn']);

    expect(dry.code).toBe(0);
    const planned = JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8')) as Report;
    const bytes = planned.items.reduce((sum, item) => sum + item.bytes, 0);
    expect(bytes).toBeGreaterThan(500_000);
    expect(planned.totals).toMatchObject({ wouldDelete: 2, wouldReclaimBytes: bytes, reclaimedBytes: 0 });
    // After the largest items it would delete, the totals.
    expect(dry.stdout.split('\n')[3]).toBe('agent-janitor (report only): would reclaim 488.3 KiB (2 items)');
    const markdown = readFileSync(path.join(w.reportDir, 'report.md'), 'utf8').split('\n');
    expect(markdown[4]).toBe('**Would reclaim 488.3 KiB** (2 items).');
    expect(markdown).toContain('| watchfire | 488.3 KiB | 2 | 0 B |');
    expect(diffInventories(before, w.snapshot())).toEqual({ removed: [], changed: [], added: [] });

    const real = await runCli(['run', '--config', w.configFile, '--json', '--log-level', 'warn']);
    const done = JSON.parse(real.stdout) as Report;
    expect(done.totals).toMatchObject({ deleted: 2, reclaimedBytes: bytes, wouldReclaimBytes: 0 });
  });

  it('counts the bytes of a dead home that a live writer still holds open, in the summary and report.md', async () => {
    const w = world();
    const home = w.session('runaway:chat', { 'AGENTS.md': '# prompt\n', 'task.out': 'z'.repeat(100_000) });
    w.age();
    const out = path.join(home, 'task.out');
    const writer = spawnLiving('sh', ['-c', `exec 3>>"$1"; exec sleep 600`, 'sh', out]);
    await waitFor(() => {
      try {
        return readFileSync(`/proc/${writer.pid}/fd/3`, { flag: 'r' }) !== null;
      } catch {
        return false;
      }
    });

    const dry = await runCli(['run', '--config', w.configFile, '--report-only', '--log-level', 'warn']);

    const report = JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8')) as Report;
    const held = report.items.find((item) => item.path === home);
    expect(held).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(held?.detail).toBe(
      `process ${writer.pid} (sleep 600, run by root) has its working directory, root, an open file or a mapping inside; only stopping it frees its 97.7 KiB`,
    );
    expect(dry.stdout).toContain('held by live processes: 97.7 KiB (1 item refused in-use)');
    const markdown = readFileSync(path.join(w.reportDir, 'report.md'), 'utf8');
    expect(markdown).toContain('| watchfire | 0 B | 0 | 97.7 KiB |');
    expect(markdown).toContain(`process ${writer.pid} (sleep 600, run by root) has its working directory`);
  });

  it.runIf(process.geteuid?.() === 0)(
    'names the user a holding process runs as, and every holder past the first few by count',
    async () => {
      const w = world();
      const home = w.session('reader:chat', { 'AGENTS.md': '# prompt\n', 'log.txt': 'l'.repeat(2048) });
      w.age();
      const log = path.join(home, 'log.txt');
      for (let folder = home; folder !== path.dirname(w.dir); folder = path.dirname(folder)) chmodSync(folder, 0o755);
      const readers = [0, 1, 2, 3].map(() =>
        spawn('sh', ['-c', 'exec 3<"$1"; exec sleep 600', 'sh', log], { uid: 65534, gid: 65534, stdio: 'ignore' }),
      );
      try {
        await waitFor(() => readers.every((reader) => existsSync(`/proc/${reader.pid}/fd/3`)));

        await runCli(['run', '--config', w.configFile, '--report-only', '--log-level', 'warn']);

        const report = JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8')) as Report;
        const detail = report.items.find((item) => item.path === home)?.detail ?? '';
        const pids = readers.map((reader) => reader.pid as number).sort((a, b) => a - b);
        expect(detail).toBe(
          `processes ${pids
            .slice(0, 3)
            .map((pid) => `${pid} (sleep 600, run by uid 65534 (nobody))`)
            .join(
              ', ',
            )} and 1 more have their working directory, root, an open file or a mapping inside; only stopping them frees its 2.0 KiB`,
        );
      } finally {
        for (const reader of readers) reader.kill('SIGKILL');
      }
    },
  );
});
