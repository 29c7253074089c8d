import type { ChildProcess } from 'node:child_process';
import { spawn } from '../util/builtins.js';
import { randomHex } from '../util/crypto.js';
import path from 'node:path';
import { DEFAULT_SILENCE_LIMIT_MS, gitEnvironment, SAFE_ARGUMENTS } from './settings.js';
import { onSilence, STOP_GRACE_MS, stopChild } from './stop.js';

/**
 * The same git command in many folders, each run started by one small shell (`sh`), not by this
 * process: a child started here costs this process's main thread about 13 ms on a small VM (the
 * page tables of its whole heap are copied), one started by the shell a fraction of that, on
 * another CPU. It is `git for-each-repo` for commands whose answers carry no mark of their own
 * (a log): the shell prints a mark before and after each run, made of a nonce drawn for the batch,
 * which no repository's content can know, the run's index and git's exit code. An answer counts
 * only where its two marks stand in order; anything else is asked again, one git at a time.
 *
 * Each run is `git -c <SAFE_CONFIG>… -C <folder> <args>`, in the environment every run has
 * (runner.ts), as this process's user. Only folders that are absolute and whose names are UTF-8
 * are given to the shell: it takes its arguments as text.
 */

export interface EachAnswer {
  code: number;
  stdout: Buffer;
}

export interface EachOptions {
  /** The shell (with git inside it) is stopped after this long without printing anything. */
  silenceLimitMs?: number;
}

/** Folders the shell can be given: absolute, and text that is exactly their bytes. */
export function canRunInEach(folder: string): boolean {
  return path.isAbsolute(folder) && folder.isWellFormed() && !folder.includes('\0');
}

const quote = (arg: string): string => `'${arg.replaceAll("'", `'\\''`)}'`;

function script(args: readonly string[]): string {
  const git = ['git', ...SAFE_ARGUMENTS].map(quote).join(' ');
  const rest = args.map(quote).join(' ');
  // $1 is the nonce; each folder is printed by index, never read back.
  return [
    'n=$1; shift; i=0',
    'for d do',
    `  printf 'H%s %d\\0' "$n" "$i"`,
    `  ${git} -C "$d" ${rest} </dev/null`,
    `  printf '\\0E%s %d %d\\0' "$n" "$i" "$?"`,
    '  i=$((i+1))',
    'done',
  ].join('\n');
}

/**
 * Runs `git -C <folder> <args>` for each folder, in order, from one shell. Answers, in the folders'
 * order, what each run printed on stdout and its exit code, for the runs whose marks stand in
 * order; `null` for the others (the shell could not start, was stopped, or printed something
 * unforeseen). stderr is not kept: a caller asks a run that failed again on its own.
 */
export function runGitInEach(
  folders: readonly string[],
  args: readonly string[],
  options: EachOptions = {},
): Promise<Array<EachAnswer | null>> {
  const nonce = randomHex(16);
  const silenceLimitMs = options.silenceLimitMs ?? DEFAULT_SILENCE_LIMIT_MS;
  for (const folder of folders) if (!canRunInEach(folder)) throw new Error(`${folder} cannot be given to the shell`);
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn('sh', ['-c', script(args), 'sh', nonce, ...folders], {
        cwd: '/',
        env: gitEnvironment(),
        stdio: ['ignore', 'pipe', 'ignore'],
        // Its own process group: stopping it reaches the git it is waiting on.
        detached: true,
      });
    } catch {
      resolve(folders.map(() => null));
      return;
    }
    const out: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    onSilence(child, silenceLimitMs, () => stopChild(child, STOP_GRACE_MS, { group: true }));
    child.on('error', () => {});
    child.on('close', () => resolve(splitAnswers(Buffer.concat(out), nonce, folders.length)));
  });
}

/** Cuts the shell's output at its marks: the answers of runs marked in order, then nulls. */
export function splitAnswers(out: Buffer, nonce: string, count: number): Array<EachAnswer | null> {
  const answers: Array<EachAnswer | null> = [];
  let at = 0;
  for (let index = 0; index < count; index += 1) {
    const header = Buffer.from(`H${nonce} ${index}\0`);
    if (!out.subarray(at, at + header.length).equals(header)) break;
    const start = at + header.length;
    const footer = Buffer.from(`\0E${nonce} ${index} `);
    const end = out.indexOf(footer, start);
    if (end === -1) break;
    const codeStart = end + footer.length;
    const codeEnd = out.indexOf(0, codeStart);
    if (codeEnd === -1) break;
    const code = out.subarray(codeStart, codeEnd).toString('latin1');
    if (!/^\d{1,3}$/.test(code)) break;
    answers.push({ code: Number(code), stdout: out.subarray(start, end) });
    at = codeEnd + 1;
  }
  while (answers.length < count) answers.push(null);
  return answers;
}
