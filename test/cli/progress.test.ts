import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { gitWrapper } from '../helpers/git-wrapper.js';

// The progress line of `run` on a real pseudo-terminal: util-linux's `script` gives the command one
// (stdin, stdout and stderr), unless the command line sends a stream elsewhere.

const CLEAR = '\r\x1b[2K';
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that clears a terminal line is what it matches
const LINE = /\r\x1b\[2Kagent-janitor (gathering|inspecting|deleting): [^\r\n\x1b]+/g;
/** The progress line's text, wherever it shows. */
const PROGRESS = /agent-janitor (gathering|inspecting|deleting):/;

let dir: string;
let config: string;

/** Runs `shell` under a pseudo-terminal and answers all it wrote there, and how long it took. */
function onTerminal(shell: string): { output: string; ms: number } {
  const started = Date.now();
  const result = spawnSync('script', ['-qfec', shell, '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, TERM: 'xterm', COLUMNS: '200' },
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return { output: result.stdout, ms: Date.now() - started };
}

const run = (extra = '') =>
  `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --report-only --config ${JSON.stringify(config)} ${extra}`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'aj-progress-'));
  // The demo's sandbox: homes of every provider, with real git repositories and SQLite databases.
  const demo = await runCli(['demo', '--dir', path.join(dir, 'sandbox')], { timeoutMs: 120_000 });
  expect(demo.code, demo.stderr).toBe(0);
  config = path.join(dir, 'sandbox', 'agent-janitor.yaml');
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the progress line of run', () => {
  it('is drawn on a terminal, rewritten in place, throttled, and erased before the summary', () => {
    // A git that answers slowly keeps the pass going for a few tenths of a second after the first
    // items are judged (a fast pass could end within one tenth, before a second line is drawn).
    const slowGit = gitWrapper(path.join(dir, 'slow-git'), 'sleep 0.3');
    const { output, ms } = onTerminal(`PATH=${JSON.stringify(slowGit)}:"$PATH" ${run()}`);
    const lines = output.match(LINE) ?? [];
    expect(lines.length).toBeGreaterThan(0);
    // At most ten a second, and the first one at once.
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(ms / 100) + 1);
    // It moved on: past the first provider's finds, or into inspecting.
    expect(lines.some((line) => /[1-9][\d,]* items? found|inspecting: [1-9]/.test(line))).toBe(true);
    // Erased at the end: the summary starts on a cleared line, and nothing of the line follows it.
    // The summary opens with the largest items it would delete, when there are any.
    const summaryAt = output.search(/would delete, largest first|agent-janitor \(report only\)/);
    expect(summaryAt).toBeGreaterThan(0);
    expect(output.slice(summaryAt - CLEAR.length, summaryAt)).toBe(CLEAR);
    expect(output.slice(summaryAt)).not.toMatch(PROGRESS);
  });

  it('leaves log lines whole: each starts on a cleared line', () => {
    const { output } = onTerminal(run('--log-level debug'));
    expect(output).toMatch(LINE);
    const logs = output.split('\n').filter((line) => line.includes('DEBUG'));
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(line.split(CLEAR).at(-1)).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\]/);
  });

  it('is not drawn when stderr is a file, even with stdout on a terminal, nor in the logs there', () => {
    const errors = path.join(dir, 'stderr.log');
    const { output } = onTerminal(`${run('--log-level debug')} 2>${JSON.stringify(errors)}`);
    expect(output).toContain('agent-janitor (report only)');
    expect(output).not.toMatch(PROGRESS);
    const logged = readFileSync(errors, 'utf8');
    expect(logged).toContain('"level":20');
    expect(logged).not.toMatch(PROGRESS);
    expect(logged).not.toContain('\x1b');
  });

  it('is not drawn when stderr is a pipe', async () => {
    const result = await runCli(['run', '--report-only', '--config', config, '--log-level', 'debug'], {
      env: { TERM: 'xterm' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('"level":20');
    expect(result.stderr).not.toMatch(PROGRESS);
    expect(result.stdout).not.toMatch(PROGRESS);
  });

  it('is not drawn beside --json, even on a terminal', () => {
    const { output } = onTerminal(run('--json'));
    expect(output).toContain('"schemaVersion": 1');
    expect(output).not.toMatch(PROGRESS);
    expect(output).not.toContain(CLEAR);
  });
});
