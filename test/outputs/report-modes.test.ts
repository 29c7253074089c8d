import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { world } from '../adversarial/support/watchfire-world.js';
import { collect, type CliResult } from '../helpers/cli.js';
import { cliReachableByAnyone } from '../helpers/reachable-cli.js';

// The report folder and its files name other users' paths, commits and command lines: made 0750
// and written 0640 whoever runs the pass, whatever its umask lets through.

const isRoot = process.geteuid?.() === 0;
const NOBODY = 65534;

const modeOf = (p: string): string => (statSync(p).mode & 0o777).toString(8);

/** A deleting pass as `uid`, under umask 000, so that only the modes the pass asks for count. */
function passAs(uid: number, args: string[]): Promise<CliResult> {
  const child = spawn('sh', ['-c', 'umask 000; exec "$@"', 'sh', process.execPath, cliReachableByAnyone(), ...args], {
    uid,
    gid: uid,
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, 60_000);
}

/** A world of one dead session, all of it `uid`'s. */
function oneDeadSession(uid: number) {
  const w = world();
  w.session('gone:chat', { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': 'x'.repeat(4096) });
  w.age();
  for (const folder of [w.dir, ...walk(w.dir)]) chownSync(folder, uid, uid);
  chmodSync(w.dir, 0o755);
  return w;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(entry.parentPath, entry.name);
    return entry.isDirectory() ? [full, ...walk(full)] : [full];
  });
}

describe.runIf(isRoot)('the modes of the report folder and its files', () => {
  for (const [who, uid] of [
    ['root', 0],
    ['an ordinary user', NOBODY],
  ] as const) {
    it(`run by ${who}: the folder 0750, report.json, report.md and audit.jsonl 0640`, async () => {
      const w = oneDeadSession(uid);
      const reportDir = path.join(w.runDir, 'new', 'report');
      const result = await passAs(uid, ['run', '--config', w.configFile, '--report-dir', reportDir]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('(1 deleted)');
      expect(modeOf(reportDir)).toBe('750');
      // A folder made on the way holds nothing but the report folder.
      expect(modeOf(path.dirname(reportDir))).toBe('755');
      for (const file of ['report.json', 'report.md', 'audit.jsonl'])
        expect([file, modeOf(path.join(reportDir, file))]).toEqual([file, '640']);
      expect(statSync(path.join(reportDir, 'report.json')).uid).toBe(uid);
    });
  }

  it('a folder that exists keeps its mode; an audit.jsonl left open to everyone is narrowed to 0640', async () => {
    const w = oneDeadSession(0);
    const reportDir = path.join(w.runDir, 'shared');
    mkdirSync(reportDir);
    // Whoever made it chose who reads it (a group's volume, say): the pass leaves that alone.
    chmodSync(reportDir, 0o775);
    writeFileSync(path.join(reportDir, 'audit.jsonl'), '');
    chmodSync(path.join(reportDir, 'audit.jsonl'), 0o644);
    writeFileSync(path.join(reportDir, 'report.json'), '{}');
    chmodSync(path.join(reportDir, 'report.json'), 0o666);
    const result = await passAs(0, ['run', '--config', w.configFile, '--report-dir', reportDir]);
    expect(result.code, result.stderr).toBe(0);
    expect(modeOf(reportDir)).toBe('775');
    for (const file of ['report.json', 'report.md', 'audit.jsonl'])
      expect([file, modeOf(path.join(reportDir, file))]).toEqual([file, '640']);
  });
});
