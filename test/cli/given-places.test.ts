import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, type CliResult, enclosedEnv, runCli } from '../helpers/cli.js';
import { cliReachableByAnyone } from '../helpers/reachable-cli.js';
import { tempDir } from '../helpers/temp.js';

// Every folder or file a command is given is checked before any work, the same way for every
// command: exit 2, one line naming the option and the path, no hang, no errno without its option.

const isRoot = process.geteuid?.() === 0;
const NOBODY = 65534;
const KERNEL = "is on the kernel's";
/** What no refusal may show: the kernel's error codes, bare. */
const RAW_ERRNO = /\b(EPERM|ENOTDIR|EACCES|ENOENT|EROFS|EEXIST)\b/;

interface Given {
  command: string[];
  option: string;
}

/** Each command with each option that names a place it writes; serve listens on a free port. */
const GIVEN: Given[] = [
  { command: ['run', '--report-only'], option: '--report-dir' },
  { command: ['serve', '--listen', '127.0.0.1:0'], option: '--report-dir' },
  { command: ['config'], option: '--report-dir' },
  { command: ['run', '--report-only'], option: '--metrics-file' },
  { command: ['serve', '--listen', '127.0.0.1:0'], option: '--metrics-file' },
  { command: ['config'], option: '--metrics-file' },
  { command: ['demo'], option: '--dir' },
];

/** A folder option gets the place itself; --metrics-file a file in it. */
const placeFor = (option: string, folder: string): string =>
  option === '--metrics-file' ? path.join(folder, 'agent_janitor.prom') : folder;

async function refused(given: Given, place: string, env: NodeJS.ProcessEnv): Promise<string> {
  const shown = [...given.command, given.option, place].join(' ');
  const result = await runCli([...given.command, given.option, place], { env, timeoutMs: 20_000 });
  return expectRefusal(result, given.option, place, shown);
}

function expectRefusal(result: CliResult, option: string, place: string, shown: string): string {
  expect([result.code, result.signal], `${shown}: ${result.stderr}`).toEqual([2, null]);
  expect(result.stdout, shown).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, shown).toHaveLength(1);
  expect(lines[0], shown).toMatch(new RegExp(`^agent-janitor: ${option}: \\S`));
  expect(lines[0], shown).toContain(place);
  expect(lines[0], shown).not.toMatch(RAW_ERRNO);
  return lines[0] as string;
}

describe('a folder or file a command is given that it cannot use is refused before any work', () => {
  it('on /proc and /sys: every command, every option, at once (demo --dir /proc/x used to loop forever)', async () => {
    const env = enclosedEnv(tempDir('aj-given-'));
    for (const given of GIVEN)
      for (const folder of ['/proc/agent-janitor-x', '/proc/self/x/y', '/sys/agent-janitor-x']) {
        const place = placeFor(given.option, folder);
        expect(await refused(given, place, env)).toContain(KERNEL);
      }
    expect(existsSync('/proc/agent-janitor-x') || existsSync('/sys/agent-janitor-x')).toBe(false);
  }, 240_000);

  it('through a file, or a file where the folder should be: the option and the path, never a bare ENOTDIR', async () => {
    const dir = tempDir('aj-given-');
    const env = enclosedEnv(dir);
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    for (const given of GIVEN) {
      const below = await refused(given, placeFor(given.option, path.join(file, 'x')), env);
      expect(below).toContain(`${file}, on its path, is a file, not a folder`);
    }
    for (const given of GIVEN.filter((each) => each.option !== '--metrics-file'))
      expect(await refused(given, file, env)).toContain(`${file} is a file, not a folder`);
    // A metrics file that is a folder could never be replaced by the new one.
    const folder = path.join(dir, 'a-folder.prom');
    mkdirSync(folder);
    for (const given of GIVEN.filter((each) => each.option === '--metrics-file'))
      expect(await refused(given, folder, env)).toContain(`the metrics file ${folder} is a folder, not a file`);
  }, 240_000);

  it('names the config file and key when the file gives the place', async () => {
    const dir = tempDir('aj-given-');
    const env = enclosedEnv(dir);
    const file = path.join(dir, 'places.yaml');
    writeFileSync(file, `homes: [${JSON.stringify(env.HOME)}]\nmetrics: { textfile: /proc/x/agent_janitor.prom }\n`);
    for (const command of [['run'], ['serve', '--listen', '127.0.0.1:0'], ['config']]) {
      const result = await runCli([...command, '--config', file], { env, timeoutMs: 20_000 });
      expect([result.code, result.stderr]).toEqual([
        2,
        `agent-janitor: ${file}: metrics.textfile: the metrics file /proc/x/agent_janitor.prom cannot be written: its folder /proc/x is on the kernel's proc file system, where no file can be kept\n`,
      ]);
    }
  }, 60_000);

  it.runIf(isRoot)(
    'that its user may not create or write in, for every command',
    async () => {
      const dir = tempDir('aj-given-');
      chmodSync(dir, 0o755);
      const env = enclosedEnv(dir);
      chmodSync(env.HOME as string, 0o777);
      // The enclosed config's own report folder, open to the user: only the given place is refused.
      mkdirSync(path.join(dir, 'report'), { mode: 0o777 });
      chmodSync(path.join(dir, 'report'), 0o777);
      const closed = path.join(dir, 'closed');
      mkdirSync(closed, { mode: 0o755 });
      const cli = cliReachableByAnyone();
      for (const given of GIVEN) {
        for (const [folder, why] of [
          [path.join(closed, 'new'), `cannot be created in ${closed} as uid ${NOBODY}: permission denied`],
          [closed, `cannot be written as uid ${NOBODY}: permission denied`],
        ] as const) {
          const place = placeFor(given.option, folder);
          const args = [cli, ...given.command, given.option, place];
          const child = spawn(process.execPath, args, {
            uid: NOBODY,
            gid: NOBODY,
            cwd: '/',
            env: { ...process.env, ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          const line = expectRefusal(await collect(child, 20_000), given.option, place, args.slice(1).join(' '));
          expect(line).toContain(why);
        }
      }
      expect(readdirSync(closed)).toEqual([]);
    },
    240_000,
  );

  it('serve refuses at start what run refuses: it never listens', async () => {
    const dir = tempDir('aj-given-');
    const env = enclosedEnv(dir);
    const result = await runCli(['serve', '--listen', '127.0.0.1:0', '--report-dir', '/proc/aj'], {
      env,
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "agent-janitor: --report-dir: the report folder /proc/aj is on the kernel's proc file system, where no file can be kept\n",
    );
  });
});
