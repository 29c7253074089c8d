import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { backdate } from '../../helpers/fs-fixtures.js';
import { pass } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * Goose's logs as its source writes them (aaif-goose/goose `crates/goose/src/logging.rs`
 * `build_logging_subscriber` and `prepare_log_directory`, `crates/goose-server/src/logging.rs`):
 * `<state>/logs/<component>/<%Y-%m-%d>/<%Y%m%d_%H%M%S>[-<name>].log`, local time, one file per
 * process (`RollingFileAppender` with `Rotation::NEVER`, appending), JSON lines of
 * tracing_subscriber's JSON layer; the server names its file `-goosed`. No Goose CLI is published on
 * npm, so these are built by hand, the way that code lays them out; the older flat layout
 * (`logs/server/20250930_111045-goosed.log`) is the one aaif-goose/goose #4965 shows.
 */
export interface GooseScene {
  root: string;
  home: string;
  state: string;
  data: string;
  work: string;
}

export function gooseScene(): GooseScene {
  const root = tempDir('aj-goose-');
  // Readable by the test users a scene hands its home to.
  chmodSync(root, 0o755);
  const home = path.join(root, 'home');
  mkdirSync(home);
  return {
    root,
    home,
    state: path.join(home, '.local', 'state', 'goose'),
    data: path.join(home, '.local', 'share', 'goose'),
    work: tempDir('aj-goose-run-'),
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');
const dayName = (when: Date): string => `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`;
const stamp = (when: Date): string =>
  `${when.getFullYear()}${pad(when.getMonth() + 1)}${pad(when.getDate())}_${pad(when.getHours())}${pad(when.getMinutes())}${pad(when.getSeconds())}`;

/** JSON lines as tracing_subscriber's JSON layer writes them (`with_target`, `with_level`). */
function logLines(count: number): string {
  let text = '';
  for (let n = 0; n < count; n += 1)
    text += `${JSON.stringify({ timestamp: '2026-11-02T09:14:03.120931Z', level: 'INFO', fields: { message: `tool call ${n}` }, target: 'goose::agents::agent' })}\n`;
  return text;
}

/**
 * The date folder a process that started at `when` made, with its log (`-<name>` when it has a
 * name), everything dated `when`: `logs/<component>/<day>/<stamp>[-name].log`.
 */
export function dateFolder(
  s: GooseScene,
  component: 'cli' | 'server',
  when: Date,
  names: string[] = [''],
): { folder: string; files: string[] } {
  const folder = path.join(s.state, 'logs', component, dayName(when));
  mkdirSync(folder, { recursive: true });
  const files = names.map((name, k) => {
    const file = path.join(folder, `${stamp(new Date(when.getTime() + k * 1000))}${name}.log`);
    writeFileSync(file, logLines(40));
    return file;
  });
  backdate(folder, when);
  return { folder, files };
}

/** A log of the older flat layout, directly in `logs/<component>/`, dated `when`. */
export function flatLog(s: GooseScene, component: 'cli' | 'server', when: Date, name = '-goosed', lines = 40): string {
  const dir = path.join(s.state, 'logs', component);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${stamp(when)}${name}.log`);
  writeFileSync(file, logLines(lines));
  backdate(file, when);
  return file;
}

export function runGoose(
  s: GooseScene,
  options: { reportOnly?: boolean; minAge?: string; env?: NodeJS.ProcessEnv; config?: Record<string, unknown> } = {},
): Promise<PassResult> {
  return pass({
    dir: s.work,
    config: { homes: [s.home], minAge: options.minAge ?? '1h', ...options.config },
    only: ['goose'],
    reportOnly: options.reportOnly ?? false,
    env: { HOME: '/nonexistent-home', ...options.env },
  });
}

const stand_ins: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(
    stand_ins.splice(0).map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return ended;
    }),
  );
});

/**
 * A stand-in goosed: `sleep` copied under the name `goosed` (its command name and executable are
 * goosed's), holding `file` open for appending on its stdout and stderr, as goosed holds its log
 * for its whole life. Killed after the test.
 */
export async function goosedWriting(file: string, options: { uid?: number; gid?: number } = {}) {
  const bin = path.join(tempDir('aj-goosed-'), 'goosed');
  copyFileSync('/bin/sleep', bin);
  chmodSync(bin, 0o755);
  chmodSync(path.dirname(bin), 0o755);
  const fd = openSync(file, 'a');
  let child: ChildProcess;
  try {
    child = spawn(bin, ['600'], {
      stdio: ['ignore', fd, fd],
      cwd: '/',
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid as number }),
    });
  } finally {
    closeSync(fd);
  }
  stand_ins.push(child);
  const pid = child.pid as number;
  await waitFor(() => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'goosed';
    } catch {
      return false;
    }
  });
  return Object.assign(child, { pid });
}
