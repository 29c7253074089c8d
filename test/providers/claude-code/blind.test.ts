import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Report } from '../../../src/model/types.js';
import { CLI, collect } from '../../helpers/cli.js';
import { itemAt } from '../../helpers/pass.js';
import { claudeWorld } from './fixtures.js';
import { deadPid, living } from './processes.js';

const isRoot = process.geteuid?.() === 0;

/**
 * Rule 19 for task output: a pass in a PID namespace of its own (a pod without hostPID) sees
 * neither the shell that carries a session's id nor the host's Claude Code, so it deletes nothing;
 * the same pass on the host's /proc keeps the carried session and deletes the dead one. The
 * built CLI runs (`npm run build` first).
 */
describe.runIf(isRoot)('claude-code: a pass that cannot see every process (rule 19)', () => {
  it('refuses liveness-unknown every folder it would delete, and changes nothing; the host pass then sees', async () => {
    const w = claudeWorld();
    const dead = w.session('/work/dead');
    const carried = w.session('/work/carried');
    await living('sleep', ['600'], {
      env: { CLAUDE_CODE_SESSION_ID: carried.sid, CLAUDE_PID: String(deadPid()) },
    });
    const config = path.join(w.dir, 'blind.yaml');
    const reportDir = path.join(w.dir, 'report');
    writeFileSync(
      config,
      stringify({ homes: [w.home], minAge: '1h', reportDir, providers: { 'claude-code': { tmpDir: w.tmp } } }),
    );
    const run = async (wrapper: string[]): Promise<Report> => {
      const argv = [...wrapper, process.execPath, CLI, 'run', '--config', config, '--only', 'claude-code', '--json'];
      const child = spawn(argv[0] as string, argv.slice(1), {
        env: { ...process.env, HOME: w.home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(child, 120_000);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as Report;
    };
    const before = w.snapshot();

    const blind = await run(['unshare', '--pid', '--fork', '--kill-child', '--mount-proc']);

    expect(blind.processCheck).toMatchObject({ visible: false, blindBecause: 'own-pid-namespace' });
    // What cannot be seen is unknown, never absent (rule 27): each session folder is refused on its own.
    for (const folder of [dead.folder, carried.folder]) {
      const item = itemAt(blind, folder);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'liveness-unknown' });
      expect(item.detail).toContain('the processes cannot be seen');
    }
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });

    const seeing = await run([]);
    expect(seeing.processCheck.visible).toBe(true);
    expect(itemAt(seeing, path.dirname(dead.folder)).verdict).toBe('deleted');
    expect(itemAt(seeing, carried.folder)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
  }, 120_000);
});
