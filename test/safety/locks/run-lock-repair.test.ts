import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/model/errors.js';
import { acquireRunLock } from '../../../src/safety/locks/run-lock.js';
import { CLI, runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp.js';
import { straceAvailable } from '../../adversarial/support/trace.js';

const GARBAGE: Record<string, (file: string) => void> = {
  'text that is no database': (file) => writeFileSync(file, 'pid 1234 on devbox\n'),
  'random bytes': (file) => writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 7919) % 251))),
  'a database header with garbage after it': (file) =>
    writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(300, 0xab)])),
  'a folder with something in it': (file) => {
    mkdirSync(file);
    writeFileSync(path.join(file, 'note'), 'left by hand\n');
  },
  'a dangling symlink': (file) => symlinkSync('/nonexistent/run.lock', file),
  'a FIFO': (file) => spawnSyncOk('mkfifo', [file]),
};

function spawnSyncOk(command: string, args: string[]): void {
  const child = spawn(command, args, { stdio: 'ignore' });
  child.on('error', () => undefined);
}

/**
 * Real passes' lock attempts, started at once: each answers `held <from> <to>` (the time it held
 * the lock, in ms) or `busy`.
 */
function race(reportDir: string, racers: number): Promise<string[]> {
  return Promise.all(Array.from({ length: racers }, () => attempt(reportDir, 700)));
}

/** One real pass's lock attempt (optionally under `prefix`, e.g. strace), holding the lock `holdMs`. */
function attempt(reportDir: string, holdMs: number, prefix: string[] = []): Promise<string> {
  const module = path.join(path.dirname(CLI), 'safety', 'locks', 'run-lock.js');
  const script = [
    `import { acquireRunLock } from ${JSON.stringify(module)};`,
    'try {',
    `  const lock = await acquireRunLock(${JSON.stringify(reportDir)});`,
    '  const from = Date.now();',
    `  await new Promise((resolve) => setTimeout(resolve, ${holdMs}));`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the child's own template literal, written as source text
    '  console.log(`held ${from} ${Date.now()}`);',
    '  lock.release();',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the child's own template literal, written as source text
    "} catch (err) { console.log(err.name === 'LockHeldError' ? 'busy' : `error ${err.message}`); }",
  ].join('\n');
  const command = [...prefix, process.execPath, '--input-type=module', '-e', script];
  return new Promise<string>((resolve) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', () => resolve(out.trim()));
  });
}

function heldSpans(answers: readonly string[]): Array<[number, number]> {
  return answers
    .filter((answer) => answer.startsWith('held '))
    .map((answer) => answer.split(' ').slice(1).map(Number) as [number, number])
    .sort((a, b) => a[0] - b[0]);
}

/** Never two holders at once: each holder's time ends before the next one's begins. */
function expectNoOverlap(spans: ReadonlyArray<[number, number]>): void {
  for (let k = 1; k < spans.length; k += 1)
    expect((spans[k] as [number, number])[0]).toBeGreaterThanOrEqual((spans[k - 1] as [number, number])[1]);
}

describe('a run lock file that is not what a pass expects (contract rule 18)', () => {
  for (const [what, make] of Object.entries(GARBAGE)) {
    it(`is replaced when it is ${what}, and then locks as before`, async () => {
      const dir = tempDir();
      const file = path.join(dir, 'run.lock');
      make(file);
      await new Promise((resolve) => setTimeout(resolve, 50));

      const lock = await acquireRunLock(dir);
      expect(lock.repaired).toMatch(/not a database|not a regular file|unable to open|disk I\/O/);
      expect(lstatSync(file).isFile()).toBe(true);
      await expect(acquireRunLock(dir)).rejects.toBeInstanceOf(LockHeldError);
      lock.release();
      const again = await acquireRunLock(dir);
      expect(again.repaired).toBeNull();
      again.release();
    });
  }

  it('keeps what it moves aside: a folder at the lock path is renamed with its content', async () => {
    const dir = tempDir();
    GARBAGE['a folder with something in it']?.(path.join(dir, 'run.lock'));
    const lock = await acquireRunLock(dir);
    lock.release();
    const aside = readdirSync(dir).filter((name) => name.startsWith('run.lock.invalid-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, aside[0] as string, 'note'), 'utf8')).toBe('left by hand\n');
  });

  it('never follows a link at the lock path: a link to a database elsewhere is moved aside, the database untouched', async () => {
    const dir = tempDir();
    const elsewhere = path.join(tempDir(), 'someones.db');
    const db = new Database(elsewhere);
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (42)');
    db.close();
    const before = readFileSync(elsewhere);
    symlinkSync(elsewhere, path.join(dir, 'run.lock'));

    const lock = await acquireRunLock(dir);
    expect(lock.repaired).toMatch(/symlink/);
    expect(lstatSync(path.join(dir, 'run.lock')).isFile()).toBe(true);
    lock.release();
    expect(readFileSync(elsewhere).equals(before)).toBe(true);
  });

  it('repairs a garbage repair lock too', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'run.lock'), 'garbage\n');
    writeFileSync(path.join(dir, 'run.lock.repair'), 'garbage as well\n');
    const lock = await acquireRunLock(dir);
    lock.release();
  });

  for (const what of ['text that is no database', 'a folder with something in it', 'a dangling symlink']) {
    it(`never lets two of eight passes racing over ${what} hold the lock at once`, async () => {
      const dir = tempDir();
      GARBAGE[what]?.(path.join(dir, 'run.lock'));
      const answers = await race(dir, 8);
      expect(
        answers.every((answer) => answer === 'busy' || answer.startsWith('held ')),
        answers.join(', '),
      ).toBe(true);
      const spans = heldSpans(answers);
      expect(spans.length).toBeGreaterThan(0);
      expectNoOverlap(spans);
    });
  }

  it.runIf(straceAvailable())(
    "a repair overtaken by another pass's repair never moves that pass's fresh lock file away",
    async () => {
      const dir = tempDir();
      GARBAGE['a folder with something in it']?.(path.join(dir, 'run.lock'));
      // The slow pass sees the folder, then its rename waits 3 s; the quick one starts meanwhile.
      const slowRename = ['strace', '-f', '-qq', '-o', '/dev/null', '-e', 'trace=rename,renameat,renameat2'];
      slowRename.push('-e', 'inject=rename,renameat,renameat2:delay_enter=3000000');
      const slow = attempt(dir, 4000, slowRename);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const quick = attempt(dir, 4000);
      const answers = await Promise.all([slow, quick]);
      expect(
        answers.every((answer) => answer === 'busy' || answer.startsWith('held ')),
        answers.join(', '),
      ).toBe(true);
      expectNoOverlap(heldSpans(answers));
    },
  );

  it('a pass over a garbage lock exits 0, and so does every later one', async () => {
    const dir = tempDir();
    const reportDir = path.join(dir, 'reports');
    mkdirSync(reportDir);
    writeFileSync(path.join(reportDir, 'run.lock'), '{"pid": 99999}\n');
    const home = path.join(dir, 'home');
    mkdirSync(home);
    for (let k = 0; k < 2; k += 1) {
      const run = await runCli(['run', '--report-only', '--home', home, '--report-dir', reportDir, '--json'], {
        env: { HOME: home },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(path.join(reportDir, 'report.json'))).toBe(true);
    }
  });
});
