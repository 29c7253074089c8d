import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/** A home that does not exist finds nothing; the pass says so instead of a silent `would reclaim 0 B`. */
describe('a --home that does not exist', () => {
  it('is one warning on stderr, a line of the summary and report.md, and a warning on each provider entry; exit 0', async () => {
    const dir = tempDir('aj-missing-home-');
    const typo = path.join(dir, 'home', 'anna');
    const pattern = path.join(dir, 'nothing-here', '*');
    const reportDir = path.join(dir, 'report');

    const result = await runCli([
      'run',
      '--report-only',
      '--home',
      typo,
      '--home',
      pattern,
      '--only',
      'watchfire,kilo',
      '--report-dir',
      reportDir,
    ]);

    expect(result.code).toBe(0);
    const warnings = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; home: string });
    expect(warnings.map((line) => [line.level, line.home])).toEqual([
      [40, typo],
      [40, pattern],
    ]);
    const said = (home: string) =>
      `the home ${home} does not exist (or no folder matches it): nothing of it was looked at`;
    expect(warnings[0]?.msg).toBe(said(typo));
    expect(result.stdout).toContain(`  warning: ${said(typo)}\n`);
    expect(result.stdout).toContain(`  warning: ${said(pattern)}\n`);
    const report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as Report;
    expect(report.providers).toEqual([
      { provider: 'watchfire', root: typo, ok: true, warning: said(typo) },
      { provider: 'watchfire', root: pattern, ok: true, warning: said(pattern) },
      { provider: 'kilo', root: typo, ok: true, warning: said(typo) },
      { provider: 'kilo', root: pattern, ok: true, warning: said(pattern) },
    ]);
    const markdown = readFileSync(path.join(reportDir, 'report.md'), 'utf8');
    expect(markdown).toContain(`## Warnings\n\n- ${said(typo)}\n- ${said(pattern)}\n`);
  });

  it('says nothing of a home that exists', async () => {
    const dir = tempDir('aj-missing-home-');
    const result = await runCli(['run', '--report-only', '--home', dir, '--report-dir', path.join(dir, 'report')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain('warning');
  });

  it('is no warning of a provider whose section names its own folders: homes do not apply to it', async () => {
    const dir = tempDir('aj-missing-home-');
    const typo = path.join(dir, 'home', 'anna');
    const config = path.join(dir, 'agent-janitor.yaml');
    writeFileSync(
      config,
      `homes: [${JSON.stringify(typo)}]\nreportDir: ${JSON.stringify(path.join(dir, 'report'))}\nproviders:\n  watchfire: { root: [${JSON.stringify(path.join(dir, 'wf'))}] }\n`,
    );

    const result = await runCli(['run', '--report-only', '--config', config, '--only', 'watchfire,kilo', '--json']);

    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.providers.filter((entry) => entry.warning).map((entry) => entry.provider)).toEqual(['kilo']);
  });
});
