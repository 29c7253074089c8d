import path from 'node:path';
import type { Owner } from '../safety/owners/owner.js';
import { randomBytes } from 'node:crypto';
import { type GitError, type GitResult, settle } from './answer.js';
import { DIES_WITH_PARENT, startGitShell } from './start.js';
import { DEFAULT_SILENCE_LIMIT_MS, SAFE_ARGUMENTS } from './settings.js';

/**
 * The same git command for many folders (or files), each run started by one small shell (`sh`),
 * not by this process: a child started here costs this process's main thread about 13 ms on a
 * small VM (the page tables of its whole heap are copied), one started by the shell a fraction of
 * that, on another CPU. It is `git for-each-repo` for commands whose answers carry no mark of
 * their own (a log, a config): the shell prints a mark before and after each run, on stdout and on
 * stderr alike, made of a nonce drawn for the batch, which no repository's content can know, the
 * run's index and git's exit code. An answer counts only where its four marks stand in order;
 * anything else is asked again, one git at a time.
 *
 * Each run is `git -c <SAFE_CONFIG>… <args>` with the folder in the place of `EACH`, in the
 * environment every run has, as `owner` (start.ts). Only values that are absolute and whose names
 * are UTF-8 are given to the shell: it takes its arguments as text.
 */

/** Where each run's folder or file goes among the arguments. */
export const EACH = Symbol('each');

export interface EachOptions {
  owner?: Owner | null;
  /** The shell (with git inside it) is stopped after this long without printing anything. */
  silenceLimitMs?: number;
}

/** Values the shell can be given: absolute, and text that is exactly their bytes. */
export function canRunInEach(value: string): boolean {
  return path.isAbsolute(value) && value.isWellFormed() && !value.includes('\0');
}

const quote = (arg: string): string => `'${arg.replaceAll("'", `'\\''`)}'`;

function script(args: ReadonlyArray<string | typeof EACH>): string {
  const git = ['setpriv', ...DIES_WITH_PARENT, 'git', ...SAFE_ARGUMENTS].map(quote).join(' ');
  const rest = args.map((arg) => (arg === EACH ? '"$d"' : quote(arg))).join(' ');
  const mark = (format: string, values: string): string =>
    `printf '${format}' ${values}; printf '${format}' ${values} >&2`;
  // $1 is the nonce; each value is printed by index, never read back.
  return [
    'n=$1; shift; i=0',
    'for d do',
    `  ${mark('H%s %d\\0', '"$n" "$i"')}`,
    `  ${git} ${rest} </dev/null`,
    '  c=$?',
    `  ${mark('\\0E%s %d %d\\0', '"$n" "$i" "$c"')}`,
    '  i=$((i+1))',
    'done',
  ].join('\n');
}

/**
 * Runs git once for each value, in order, from one shell. Answers, in the values' order, each run's
 * answer (settled as every answer is: rule 22), or `null` where its marks did not stand in order
 * (the shell could not start, was stopped, or printed something unforeseen).
 */
export async function runGitInEach(
  values: readonly string[],
  args: ReadonlyArray<string | typeof EACH>,
  options: EachOptions = {},
): Promise<Array<GitResult | GitError | null>> {
  for (const value of values) if (!canRunInEach(value)) throw new Error(`${value} cannot be given to the shell`);
  const nonce = randomBytes(16).toString('hex');
  let out: Buffer;
  let err: Buffer;
  try {
    const answer = await startGitShell(script(args), [nonce, ...values], {
      owner: options.owner ?? null,
      supervision: { silenceLimitMs: options.silenceLimitMs ?? DEFAULT_SILENCE_LIMIT_MS },
    });
    out = answer.stdout;
    err = answer.stderr;
  } catch {
    return values.map(() => null);
  }
  const stdouts = splitAnswers(out, nonce, values.length);
  const stderrs = splitAnswers(err, nonce, values.length);
  return values.map((value, k) => {
    const stdout = stdouts[k];
    const stderr = stderrs[k];
    if (!stdout || !stderr || stdout.code !== stderr.code) return null;
    const shown = `git ${args.map((arg) => (arg === EACH ? value : arg)).join(' ')}`;
    try {
      return settle(shown, { code: stdout.code, stdout: stdout.stdout, stderr: stderr.stdout });
    } catch (error) {
      return error as GitError;
    }
  });
}

/** Cuts one of the shell's streams at its marks: the output of runs marked in order, then nulls. */
export function splitAnswers(
  out: Buffer,
  nonce: string,
  count: number,
): Array<{ code: number; stdout: Buffer } | null> {
  const answers: Array<{ code: number; stdout: Buffer } | null> = [];
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
