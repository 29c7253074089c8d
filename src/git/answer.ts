import { decodeBytes } from '../safety/fs/names.js';

/** What one git run answered: its exit code and every byte it wrote (names keep their bytes). */
export interface RawAnswer {
  code: number;
  stdout: Buffer;
  stderr: Buffer;
}

/** The same, decoded with the names codec (src/safety/fs/names.ts), so no byte is lost. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** git gave no answer: it could not be run, was stopped at its time limit, or said part is missing. */
export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly result: GitResult | null,
  ) {
    super(message);
  }
}

/**
 * Rule 22: git warned that it could not open, read or stat something it was asked about, so its
 * answer (whatever its exit code) leaves that out; the item it was about is `unreadable-content`.
 */
export class IncompleteAnswer extends GitError {
  override name = 'IncompleteAnswer';
}

/**
 * The lines of git's stderr that say part of what it was asked about could not be read, as git
 * 2.39 writes them when it meets a folder of another uid (mode 700) or a file it may not read:
 *   `warning: could not open directory 'db/': Permission denied` (status: the folder is left out)
 *   `trk/f: Permission denied` (status: a tracked file below such a folder, left out)
 *   `warning: ignoring broken ref refs/heads/task` (log, for-each-ref: a ref file it cannot read)
 *   `warning: unable to access '/r/config': Permission denied` (config: read as if empty)
 *   `error: unable to open object pack directory: .git/objects/pack: Permission denied`
 *   `fatal: failed to read object <id>: Permission denied`, `fatal: couldn't read .git/packed-refs: …`
 * An error number git prints after a colon: EACCES, EPERM, EIO and ESTALE say the content is
 * there and could not be read. A missing entry or one of another kind (`No such file or
 * directory`, `Not a directory`, `Is a directory`: a config file that is a folder is read as empty,
 * rightly) is an answer callers read for themselves.
 */
const SAYS_SOMETHING_UNREAD: readonly RegExp[] = [
  /: (Permission denied|Operation not permitted|Input\/output error|Stale file handle)$/,
  /\bcould not open directory\b/,
  /\b(unable to|could not|cannot|failed to) (stat|lstat|access)\b/,
  /^warning: ignoring broken ref /,
];

/** What git says of an entry that is not there, or not of the kind asked for: no content was left unread. */
const NOTHING_THERE = /: (No such file or directory|Not a directory|Is a directory)$/;

/** The first line of `stderr` that says git could not read part of what it was asked, or null. */
export function unreadMessage(stderr: string): string | null {
  for (const line of stderr.split('\n')) {
    const text = line.trimEnd();
    if (NOTHING_THERE.test(text)) continue;
    if (SAYS_SOMETHING_UNREAD.some((pattern) => pattern.test(text))) return text;
  }
  return null;
}

/**
 * Every answer passes here, however its git was started: decoded so that paths keep their bytes,
 * and thrown out (IncompleteAnswer) when git says it could not read part of it (rule 22).
 */
export function settle(shown: string, answer: RawAnswer): GitResult {
  const result: GitResult = {
    code: answer.code,
    stdout: decodeBytes(answer.stdout),
    stderr: decodeBytes(answer.stderr),
  };
  const unread = unreadMessage(result.stderr);
  if (unread) throw new IncompleteAnswer(`${shown}: git could not read part of what it was asked: ${unread}`, result);
  return result;
}

/** git's last line on stderr: its `fatal:` or `error:` message. */
export function lastLine(stderr: string): string {
  return stderr.trim().split('\n').pop() ?? '';
}
