import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enclosedEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

// `agent-janitor report` through the built CLI: the options it takes, where it reads the report,
// and what it says when there is none.

function enclosed() {
  const base = tempDir('aj-report-');
  const env = enclosedEnv(base);
  return { base, env, home: env.HOME as string, reportDir: path.join(base, 'report') };
}

/** The one line a refused command line prints, without the program's name: exit 2, nothing on stdout. */
async function refusal(args: string[]): Promise<string> {
  const result = await runCli(args, { env: enclosed().env });
  expect(result, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
  expect(result.stderr, args.join(' ')).toMatch(/^agent-janitor: [^\n]+\n$/);
  return result.stderr.slice('agent-janitor: '.length, -1);
}

describe('report', () => {
  it('takes only --config, --report-dir and --json', async () => {
    for (const option of ['--home', '--only', '--pushgateway', '--min-age', '--metrics-file', '--log-level'])
      expect(await refusal(['report', option, 'x']), option).toBe(
        `unknown arguments ${option}, x for report (agent-janitor help report lists its options)`,
      );
    expect(await refusal(['report', '--dry-run'])).toBe(
      'unknown argument --dry-run for report (agent-janitor help report lists its options)',
    );
  });

  it('exits 1 with one line naming where it looked when there is no report yet', async () => {
    const w = enclosed();
    const missing = path.join(w.base, 'never');
    const none = await runCli(['report', '--report-dir', missing], { env: w.env });
    expect(none).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `agent-janitor: no report yet: ${missing}/report.json does not exist (agent-janitor run writes it)\n`,
    });
    // The config's report directory, with no option at all.
    const fromConfig = await runCli(['report'], { env: w.env });
    expect(fromConfig).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `agent-janitor: no report yet: ${w.reportDir}/report.json does not exist (agent-janitor run writes it)\n`,
    });
  });

  it('reads the report directory the config names, or --report-dir, before or after the command', async () => {
    const w = enclosed();
    await runCli(['run', '--report-only', '--home', w.home], { env: w.env });
    const written = readFileSync(path.join(w.reportDir, 'report.json'), 'utf8');
    const file = w.env.AGENT_JANITOR_CONFIG as string;
    expect((await runCli(['report', '-c', file, '--json'], { env: {} })).stdout).toBe(written);
    expect((await runCli(['--json', 'report', '--report-dir', w.reportDir], { env: w.env })).stdout).toBe(written);
    const markdown = await runCli(['report', `--report-dir=${w.reportDir}`], { env: w.env });
    expect(markdown).toMatchObject({ code: 0, stderr: '' });
    expect(markdown.stdout).toBe(readFileSync(path.join(w.reportDir, 'report.md'), 'utf8'));
  });
});
