import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { enclosedEnv, runCli } from '../helpers/cli.js';
import { holdRunLock } from '../helpers/lock-holder.js';
import { tempDir } from '../helpers/temp.js';

function emptyWorld() {
  const base = tempDir();
  return { base, home: path.join(base, 'home'), reportDir: path.join(base, 'report') };
}

describe('the command line', () => {
  it('exits 2 with one line naming the key and file for a bad config, touching nothing', async () => {
    const w = emptyWorld();
    const file = path.join(w.base, 'bad.yaml');
    writeFileSync(file, `reportDir: ${w.reportDir}\nminAge: 1hour\n`);
    const result = await runCli(['run', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('minAge');
    expect(existsSync(w.reportDir)).toBe(false);

    writeFileSync(file, `reportDir: ${w.reportDir}\nprovider: {}\n`);
    const unknown = await runCli(['run', '--config', file]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe(`agent-janitor: ${file}: unknown key provider`);
  });

  it('exits 2 with one line for bad usage: an unknown option, an unknown provider, a bad duration, a missing value', async () => {
    const w = emptyWorld();
    for (const args of [
      ['run', '--frobnicate'],
      ['run', '--only', 'watchfire,cursor'],
      ['run', '--min-age', 'soon'],
      ['run', '--log-level', 'loud'],
      ['run', 'extra'],
      ['nonsense'],
      [],
    ]) {
      const result = await runCli([...args, '--report-dir', w.reportDir], { env: enclosedEnv(w.base) });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    // A value left out at the end never leaves the option empty, or the pass running without it.
    const noHome = await runCli(['run', '--report-dir', w.reportDir, '--home']);
    expect(noHome).toMatchObject({ code: 2, stdout: '', stderr: 'agent-janitor: --home needs a value: --home DIR\n' });
    expect(existsSync(w.reportDir)).toBe(false);
  });

  it('prints exactly the report JSON with --json, and a short summary without', async () => {
    const w = emptyWorld();
    const json = await runCli(['run', '--report-only', '--json', '--home', w.home, '--report-dir', w.reportDir]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toEqual(JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8')));
    expect(report.mode).toBe('report-only');
    const human = await runCli(['run', '--dry-run', '--home', w.home, '--report-dir', w.reportDir]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^agent-janitor \(report only\): would reclaim 0 B \(0 items\)/);
    expect(human.stdout).toContain(path.join(w.reportDir, 'report.md'));
  });

  it('logs JSON lines on stderr at the chosen level, never on stdout', async () => {
    const w = emptyWorld();
    const result = await runCli([
      'run',
      '--report-only',
      '--json',
      '--log-level',
      'debug',
      '--home',
      w.home,
      '--report-dir',
      w.reportDir,
    ]);
    const lines = result.stderr.trim().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('level');
    expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it('exits 75 at once with one line on stderr and nothing on stdout while another pass holds the lock', async () => {
    const w = emptyWorld();
    const holder = await holdRunLock(w.reportDir);
    try {
      const started = Date.now();
      const result = await runCli(['run', '--home', w.home, '--report-dir', w.reportDir]);
      expect(result.code).toBe(75);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/another agent-janitor pass holds/);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(existsSync(path.join(w.reportDir, 'report.json'))).toBe(false);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('prints the latest report with `report`, and says so when there is none', async () => {
    const w = emptyWorld();
    const none = await runCli(['report', '--report-dir', w.reportDir]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no report yet');
    await runCli(['run', '--report-only', '--home', w.home, '--report-dir', w.reportDir]);
    const markdown = await runCli(['report', '--report-dir', w.reportDir]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(/^# agent-janitor report \(report-only\)/);
    const json = await runCli(['report', '--json', '--report-dir', w.reportDir]);
    expect(JSON.parse(json.stdout).schemaVersion).toBe(1);
  });

  it('prints the effective config as YAML with `config`', async () => {
    const w = emptyWorld();
    const file = path.join(w.base, 'config.yaml');
    writeFileSync(file, 'minAge: 2h\nproviders:\n  kilo: { enabled: false }\n');
    const result = await runCli(['config', '--config', file, '--home', w.home]);
    expect(result.code).toBe(0);
    const printed = parse(result.stdout);
    expect(printed.minAge).toBe('2h');
    expect(printed.homes).toEqual([w.home]);
    expect(printed.providers.kilo).toEqual({ enabled: false, apps: ['kilo', 'opencode'] });
    expect(printed.providers.owl.reviewAfter).toBe('7d');
    const env = await runCli(['config'], { env: { AGENT_JANITOR_CONFIG: file } });
    expect(parse(env.stdout).minAge).toBe('2h');
  });
});

describe('the summary', () => {
  it('says what stopped the refusals and what is unfinished, by reason', async () => {
    const { renderSummary } = await import('../../src/outputs/summary.js');
    const item = (verdict: string, reason: string) => ({
      provider: 'watchfire',
      kind: 'session-home',
      path: `/h/${reason}`,
      bytes: 1,
      verdict,
      reason,
      detail: '',
    });
    const report = {
      mode: 'delete',
      providers: [],
      items: [
        item('refused', 'in-use'),
        item('refused', 'symlink'),
        item('refused', 'in-use'),
        item('unfinished', 'session-interrupted'),
      ],
      totals: { reclaimedBytes: 2048, deleted: 2, wouldDelete: 0, kept: 0, refused: 3, unfinished: 1, failed: 0 },
    } as unknown as Parameters<typeof renderSummary>[0];
    const text = renderSummary(report, '/r');
    expect(text).toContain('reclaimed 2.0 KiB (2 deleted)');
    expect(text).toContain('refused 3 (in-use 2, symlink 1), unfinished 1 (session-interrupted 1), failed 0');
    expect(text).toContain('unfinished: /h/session-interrupted (session-interrupted)');
  });
});
