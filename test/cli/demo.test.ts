import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, utimesSync } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { isInside } from '../../src/safety/containment.js';
import { whose } from '../../src/safety/processes/user-names.js';
import { CLI, collect, runCli } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { waitFor } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../helpers/users.js';

const HOLDER = 'agent-janitor demo: a runaway agent writing into dead scratch';
const LIVE = /^Live process (\d+) writes into (.+) until the demo ends$/m;

/** The pids of the processes that have `file` open, from every /proc/<pid>/fd. */
function openedBy(file: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    const targets = fds.map((fd) => {
      try {
        return readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        return null;
      }
    });
    if (targets.includes(file)) pids.push(Number(entry));
  }
  return pids;
}

/** Whether `pid` runs: a zombie (exited, not yet reaped by whoever inherited it) does not. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** "1.4 MiB" from a summary line, which must be more than nothing. */
function nonZero(text: string | undefined): string {
  expect(text).toBeDefined();
  expect(text).not.toBe('0 B');
  return text as string;
}

describe('agent-janitor demo', () => {
  it('shows what it would reclaim and what a live process holds, in both passes and report.md; the holder is gone after it', async () => {
    const sandbox = path.join(tempDir('aj-demo-'), 'sandbox');

    const result = await runCli(['demo', '--dir', sandbox], { timeoutMs: 150_000 });

    expect(result.code, result.stderr).toBe(0);
    const live = LIVE.exec(result.stdout);
    expect(live, result.stdout).not.toBeNull();
    const pid = Number(live?.[1]);
    const file = live?.[2] as string;
    const [, dry, real] = result.stdout.split(/^== (?:report-only|real) pass ==$/m);
    nonZero(/^agent-janitor \(report only\): would reclaim (.+) \([\d,]+ items?\)$/m.exec(dry ?? '')?.[1]);
    nonZero(/^agent-janitor: reclaimed (.+) \([\d,]+ deleted\)$/m.exec(real ?? '')?.[1]);
    for (const summary of [dry, real])
      nonZero(/^ {2}held by live processes: (.+) \(1 item refused in-use\)$/m.exec(summary ?? '')?.[1]);

    // The real pass's report: the held item is refused in-use, naming the holder, and still there.
    const report = JSON.parse(readFileSync(path.join(sandbox, 'report', 'report.json'), 'utf8')) as Report;
    const held = report.items.filter((item) => item.verdict === 'refused' && item.reason === 'in-use');
    expect(held.map((item) => item.path)).toEqual([file.split('/sessions/')[0]]);
    const item = held[0] as Report['items'][number];
    expect(existsSync(file)).toBe(true);
    const size = nonZero(/only stopping it frees its (.+)$/.exec(item.detail)?.[1]);
    const user = whose(process.geteuid?.() ?? 0);
    expect(item.detail).toBe(
      `process ${pid} (${HOLDER}, run by ${user}) has its working directory, root, an open file or a mapping inside; only stopping it frees its ${size}`,
    );
    const markdown = readFileSync(path.join(sandbox, 'report', 'report.md'), 'utf8');
    expect(markdown).toContain(`| watchfire | session-home | ${item.path} | ${size} | in-use | ${item.detail} |\n`);
    expect(markdown).toMatch(new RegExp(`^\\| watchfire \\| [^|]+ \\| \\d+ \\| ${size.replace('.', '\\.')} \\|$`, 'm'));

    // The example README.md and docs/operations.md show is this row, from a demo in /tmp/demo.
    const shape = (row: string, where: string, holder: number, bytes: string, by: string) =>
      row
        .replaceAll(where, '<sandbox>')
        .replace(`process ${holder} (`, 'process <pid> (')
        .replaceAll(`| ${bytes} |`, '| <size> |')
        .replace(`frees its ${bytes} |`, 'frees its <size> |')
        .replace(`, run by ${by})`, ', run by <user>)');
    const row = `| watchfire | session-home | ${item.path} | ${size} | in-use | ${item.detail} |`;
    for (const doc of ['README.md', 'docs/operations.md']) {
      const text = readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8');
      const shown = text.split('\n').find((line) => line.includes('| in-use | process '));
      expect(shown, doc).toBeDefined();
      const [, pidShown, sizeShown] = /process (\d+) .* frees its (.+) \|$/.exec(shown as string) ?? [];
      expect(shape((shown as string).trim(), '/tmp/demo', Number(pidShown), sizeShown as string, 'root'), doc).toBe(
        shape(row, sandbox, pid, size, user),
      );
    }

    // No holder outlives the demo.
    expect(running(pid)).toBe(false);
    expect(openedBy(file)).toEqual([]);
  }, 180_000);

  it('leaves no holder behind when it is killed while the holder runs', async () => {
    const sandbox = path.join(tempDir('aj-demo-killed-'), 'sandbox');
    const demo = spawn(process.execPath, [CLI, 'demo', '--dir', sandbox], { stdio: ['ignore', 'pipe', 'pipe'] });
    const done = collect(demo, 150_000);
    let stdout = '';
    demo.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor(() => LIVE.test(stdout) || demo.exitCode !== null, 120_000);
    const live = LIVE.exec(stdout);
    expect(live, stdout).not.toBeNull();
    const pid = Number(live?.[1]);
    const file = live?.[2] as string;
    expect(running(pid)).toBe(true);
    expect(openedBy(file)).toEqual([pid]);

    try {
      demo.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');

      // Its stdin, a pipe only the demo held, is closed by the kernel: the holder exits at once.
      await waitFor(() => !running(pid), 5_000);
      expect(openedBy(file)).toEqual([]);
    } finally {
      if (running(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 180_000);

  it('never leaves its sandbox, though a live Codex of the same user names a home elsewhere', async () => {
    // The demo and that Codex run as a user of their own, so that no other test's pass (their homes
    // are root's) takes this Codex's home for one of its own.
    const [user] = addUsers(1) as [RealUser];
    const as = ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups'];
    // A Codex home outside the sandbox with a log database Codex superseded ten days and more ago:
    // a pass over that home deletes it (Codex's own rule); the demo must not even see it.
    const elsewhere = tempDir('aj-demo-codex-home-');
    for (const name of ['logs_1.sqlite', 'logs_2.sqlite']) {
      const db = new Database(path.join(elsewhere, name));
      db.exec('CREATE TABLE logs (id INTEGER PRIMARY KEY)');
      db.close();
    }
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(path.join(elsewhere, 'logs_1.sqlite'), longAgo, longAgo);
    giveTo(elsewhere, user);
    const before = inventory(elsewhere);
    const parent = tempDir('aj-demo-apart-');
    giveTo(parent, user);
    const sandbox = path.join(parent, 'sandbox');
    // Not the demo's child: a Codex the user runs beside it, with its own CODEX_HOME.
    const codex = spawn('setpriv', [...as, 'bash', '-c', 'exec -a codex sleep 600'], {
      env: { ...process.env, CODEX_HOME: elsewhere },
      stdio: 'ignore',
    });
    try {
      const demo = spawn('setpriv', [...as, process.execPath, CLI, 'demo', '--dir', sandbox], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(demo, 150_000);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(readFileSync(path.join(sandbox, 'report', 'report.json'), 'utf8')) as Report;
      const outside = report.items.filter((item) => item.path !== null && !isInside(sandbox, item.path));
      expect(outside).toEqual([]);
      expect(diffInventories(before, inventory(elsewhere))).toEqual({ removed: [], changed: [], added: [] });
    } finally {
      codex.kill('SIGKILL');
    }
  }, 180_000);
});
