import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitWrapper } from './git-wrapper.js';

/**
 * What git 2.39 writes on stderr when it meets what it may not read, taken from real runs as a
 * user over a repository holding a folder or file of another uid (mode 700 or 600); the last two
 * are the same messages with the other error numbers that say content could not be read.
 */
export const UNREAD_WARNINGS: readonly string[] = [
  // git status: an untracked folder (the answer leaves it out and calls the tree clean).
  "warning: could not open directory 'db/': Permission denied",
  // git status: a tracked file below such a folder (left out of the answer, exit 0).
  'trk/f: Permission denied',
  // git log --all, git for-each-ref: a ref file it cannot read (its commits are left out, exit 0).
  'warning: ignoring broken ref refs/heads/task-1790000000801',
  // git config --get: a config file it cannot read is read as empty (exit 1: "not set").
  "warning: unable to access '/srv/r/.git/config': Permission denied",
  'error: unable to open object pack directory: .git/objects/pack: Permission denied',
  'fatal: failed to read object 0f6c1b1bfa0f8c5de35b6b7e36c7a4b1a7f0e9d2: Permission denied',
  "fatal: unable to read config file '/srv/r/.git/config': Permission denied",
  "fatal: couldn't read .git/packed-refs: Permission denied",
  'fatal: .git/index: index file open failed: Permission denied',
  'fatal: failed to read .git/worktrees/wt/commondir: Permission denied',
  "warning: unable to stat 'src/app.ts': Input/output error",
  "error: could not stat 'db': Operation not permitted",
];

/**
 * A `git` first on PATH (test/helpers/git-wrapper.ts) that runs the real one, after writing
 * `warnings[marker]` on stderr in every run whose working directory or arguments name `marker`:
 * exit code and output stay git's own. Answers the folder to put first on PATH.
 */
export function warningGit(dir: string, warnings: ReadonlyMap<string, string>): string {
  const folder = path.join(dir, 'warnings');
  mkdirSync(folder, { recursive: true });
  const arms = [...warnings].map(([marker, warning], k) => {
    const file = path.join(folder, String(k));
    writeFileSync(file, `${warning}\n`);
    return `  *'${marker}'*) cat '${file}' >&2 ;;`;
  });
  return gitWrapper(dir, ['case "$PWD $*" in', ...arms, 'esac'].join('\n'));
}
