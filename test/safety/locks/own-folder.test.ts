import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, runCli, type CliResult } from '../../helpers/cli.js';
import { cliReachableByAnyone } from '../../helpers/reachable-cli.js';
import { tempDir } from '../../helpers/temp.js';

const isRoot = process.geteuid?.() === 0;
const NOBODY = 65534;

/** A report-only pass over an empty home, its report kept in `reportDir`. */
function passInto(reportDir: string, extra: string[] = []): Promise<CliResult> {
  const home = tempDir('aj-own-home-');
  return runCli(['run', '--report-only', '--home', home, '--report-dir', reportDir, ...extra], { timeoutMs: 20_000 });
}

function passAs(uid: number, reportDir: string): Promise<CliResult> {
  const home = tempDir('aj-own-home-');
  chmodSync(home, 0o755);
  const child = spawn(
    process.execPath,
    [cliReachableByAnyone(), 'run', '--report-only', '--home', home, '--report-dir', reportDir],
    {
      uid,
      gid: uid,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return collect(child, 20_000);
}

/** Refused before any work: exit 2, one line on stderr naming the option, nothing on stdout. */
function expectOneLine(result: CliResult, text: string, option = '--report-dir'): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toEqual([`agent-janitor: ${option}: ${text}`]);
}

describe('a report folder the pass cannot use: refused before any work, one line naming it and why, no hang', () => {
  it('is refused on the kernel’s file systems before anything is created (Node’s recursive mkdir never ends on /proc)', async () => {
    expectOneLine(
      await passInto('/proc/agent-janitor'),
      "the report folder /proc/agent-janitor is on the kernel's proc file system, where no file can be kept",
    );
    expectOneLine(
      await passInto('/proc/self/x/y'),
      "the report folder /proc/self/x/y is on the kernel's proc file system, where no file can be kept",
    );
    expectOneLine(
      await passInto('/sys/agent-janitor'),
      "the report folder /sys/agent-janitor is on the kernel's sysfs file system, where no file can be kept",
    );
  });

  it('names the file that stands where the folder or one of its parents should be', async () => {
    const dir = tempDir('aj-own-');
    const file = path.join(dir, 'report');
    writeFileSync(file, 'not a folder\n');
    expectOneLine(await passInto(file), `the report folder ${file} cannot be used: ${file} is a file, not a folder`);
    const below = path.join(file, 'deeper', 'still');
    expectOneLine(
      await passInto(below),
      `the report folder ${below} cannot be used: ${file}, on its path, is a file, not a folder`,
    );
  });

  it('names a link that leads nowhere, or in a loop, as the folder or on its path; nothing is made through it', async () => {
    const dir = tempDir('aj-own-');
    const dangling = path.join(dir, 'dangling');
    const nowhere = path.join(dir, 'gone', 'reports');
    symlinkSync(nowhere, dangling);
    const leadsNowhere = `a symbolic link to ${nowhere} that leads nowhere`;
    expectOneLine(
      await passInto(dangling),
      `the report folder ${dangling} cannot be used: ${dangling} is ${leadsNowhere}`,
    );
    const below = path.join(dangling, 'deeper');
    expectOneLine(
      await passInto(below),
      `the report folder ${below} cannot be used: ${dangling}, on its path, is ${leadsNowhere}`,
    );
    expect(existsSync(path.join(dir, 'gone'))).toBe(false);

    const loop = path.join(dir, 'loop');
    symlinkSync('other', loop);
    symlinkSync('loop', path.join(dir, 'other'));
    const loops = 'a symbolic link that loops back on itself';
    expectOneLine(await passInto(loop), `the report folder ${loop} cannot be used: ${loop} is ${loops}`);
    const inLoop = path.join(loop, 'report');
    expectOneLine(
      await passInto(inLoop),
      `the report folder ${inLoop} cannot be used: ${loop}, on its path, is ${loops}`,
    );

    // The metrics file's folder the same way, refused before any work.
    for (const [folder, said] of [
      [dangling, `${dangling} is ${leadsNowhere}`],
      [inLoop, `${loop}, on its path, is ${loops}`],
    ] as const) {
      const file = path.join(folder, 'metrics.prom');
      expectOneLine(
        await passInto(path.join(dir, 'report'), ['--metrics-file', file]),
        `the metrics file ${file} cannot be written: its folder ${folder} cannot be used: ${said}`,
        '--metrics-file',
      );
    }
    expect(existsSync(path.join(dir, 'report'))).toBe(false);
  });

  it.runIf(isRoot)(
    'says when the user running the pass may not create or write it, and never points at a run.lock.repair',
    async () => {
      const dir = tempDir('aj-own-');
      chmodSync(dir, 0o755);
      const closed = path.join(dir, 'closed');
      mkdirSync(closed, { mode: 0o755 });
      const result = await passAs(NOBODY, path.join(closed, 'report'));
      expectOneLine(
        result,
        `the report folder ${path.join(closed, 'report')} cannot be created in ${closed} as uid ${NOBODY}: permission denied`,
      );
      const again = await passAs(NOBODY, closed);
      expectOneLine(again, `the report folder ${closed} cannot be written as uid ${NOBODY}: permission denied`);
      expect(readdirSync(closed)).toEqual([]);
    },
  );

  it.runIf(isRoot)('says when the folder is on a read-only mount', async () => {
    const dir = tempDir('aj-own-');
    const mount = path.join(dir, 'ro');
    mkdirSync(path.join(mount), { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', mount]);
    try {
      expectOneLine(
        await passInto(mount),
        `the report folder ${mount} cannot be written as uid 0: it is on a read-only file system`,
      );
      const inside = path.join(mount, 'report');
      expectOneLine(
        await passInto(inside),
        `the report folder ${inside} cannot be created in ${mount} as uid 0: it is on a read-only file system`,
      );
    } finally {
      execFileSync('umount', [mount]);
    }
  });

  it('a metrics file on /proc is refused before any work: no report, no hang', async () => {
    const reportDir = path.join(tempDir('aj-own-'), 'report');
    expectOneLine(
      await passInto(reportDir, ['--metrics-file', '/proc/agent-janitor/metrics.prom']),
      "the metrics file /proc/agent-janitor/metrics.prom cannot be written: its folder /proc/agent-janitor is on the kernel's proc file system, where no file can be kept",
      '--metrics-file',
    );
    expect(existsSync(reportDir)).toBe(false);
  });
});
