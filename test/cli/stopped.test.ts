import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { world, type World } from '../adversarial/support/watchfire-world.js';
import { CLI, collect, runCli } from '../helpers/cli.js';
import { inTerminal } from '../helpers/terminal.js';

// A `run` stopped by SIGTERM (systemd, Kubernetes) or SIGINT (Ctrl-C) in the middle of its
// deletions: one line says how far it got, the exit is 143 or 130, and the next pass finishes
// what this one started.

const SESSIONS = 400;
const FILES = 40;

/** Enough dead Watchfire sessions, each a tree of files, that deleting them takes a while. */
function manyDeadSessions(): World {
  const w = world();
  for (let k = 0; k < SESSIONS; k += 1) {
    const home = w.session(`gone-${k}:chat`, { 'AGENTS.md': '# prompt\n' });
    const sessions = path.join(home, 'sessions');
    mkdirSync(sessions);
    for (let f = 0; f < FILES; f += 1) writeFileSync(path.join(sessions, `rollout-${f}.jsonl`), '{"type":"message"}\n');
  }
  w.age();
  return w;
}

interface LogRecord {
  msg: string;
  [field: string]: unknown;
}

const records = (stderr: string): LogRecord[] =>
  stderr
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogRecord);

const STOPPED =
  /^stopped by (SIGTERM|SIGINT) while deleting: ([\d,]+) of ([\d,]+) planned deletions done, ([\d,]+) items? deleted \([\d.]+ [KMG]?i?B freed\); the next pass finishes what was started$/;

/** What is left of the sessions, and the quarantines a stopped pass left among them. */
function leftOf(w: World): { sessions: number; quarantines: number } {
  const names = readdirNames(path.join(w.root, 'codex-home'));
  return {
    sessions: names.filter((name) => name.startsWith('gone-')).length,
    quarantines: names.filter((name) => name.includes('.cleanup-')).length,
  };
}

function readdirNames(dir: string): string[] {
  return readdirSync(dir).sort();
}

describe('a run stopped in the middle of its deletions', () => {
  it('by SIGTERM: one line saying how far it got, exit 143, and the next pass finishes the work', async () => {
    const w = manyDeadSessions();
    const child = spawn(process.execPath, [CLI, 'run', '--config', w.configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let signalled = false;
    child.stderr.on('data', (chunk: Buffer) => {
      if (signalled || !chunk.toString().includes('"msg":"deleted"')) return;
      signalled = true;
      child.kill('SIGTERM');
    });
    const result = await collect(child, 120_000);
    expect([result.code, result.signal]).toEqual([143, null]);
    expect(result.stdout).toBe('');
    const logged = records(result.stderr);
    const last = logged.at(-1) as LogRecord;
    expect(last.msg).toMatch(STOPPED);
    const [, signal, done, planned, deleted] = STOPPED.exec(last.msg) ?? [];
    expect(signal).toBe('SIGTERM');
    expect(Number(planned?.replaceAll(',', ''))).toBe(SESSIONS);
    const count = Number(deleted?.replaceAll(',', ''));
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(SESSIONS);
    expect(Number(done?.replaceAll(',', ''))).toBeGreaterThanOrEqual(count);
    expect(last).toMatchObject({ signal: 'SIGTERM', phase: 'deleting', deleted: count });
    // Each deletion said before it: the line counts them all.
    expect(logged.filter((record) => record.msg === 'deleted')).toHaveLength(count);
    const audit = readFileSync(path.join(w.reportDir, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(audit).toHaveLength(count);

    const next = await runCli(['run', '--config', w.configFile, '--log-level', 'warn']);
    expect(next.code, next.stderr).toBe(0);
    expect(leftOf(w)).toEqual({ sessions: 0, quarantines: 0 });
  }, 180_000);

  it('by Ctrl-C at a terminal: the progress line is taken away, one line, exit 130', async () => {
    const w = manyDeadSessions();
    const { screen, raw, status } = await inTerminal(
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --config ${JSON.stringify(w.configFile)}`,
      { type: { once: /agent-janitor deleting: [1-9]/, keys: ['C-c'] }, timeoutMs: 120_000 },
    );
    expect(status, screen).toBe(130);
    const shown = screen.split('\n').filter((line) => line.trim() !== '');
    const stopped = shown.filter((line) => line.includes('stopped by SIGINT'));
    expect(stopped).toHaveLength(1);
    expect((stopped[0] as string).replace(/^.* INFO .*?: /, '')).toMatch(STOPPED);
    // Nothing but the log line is left: no progress line, no ^C after it, no summary.
    expect(screen).not.toMatch(/agent-janitor (gathering|inspecting|deleting):/);
    expect(screen).not.toContain('^C');
    expect(screen).not.toContain('agent-janitor: reclaimed');
    // The line was cleared before the log line was written.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that clears a terminal line is what it matches
    expect(raw).toMatch(/\r\x1b\[2K[^\r]*stopped by SIGINT/);

    const next = await runCli(['run', '--config', w.configFile, '--log-level', 'warn']);
    expect(next.code, next.stderr).toBe(0);
    expect(leftOf(w)).toEqual({ sessions: 0, quarantines: 0 });
  }, 180_000);
});
