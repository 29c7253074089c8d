import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The git this machine runs, found once. */
const realGit = (): string => execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/**
 * A `git` of the test's own in `<dir>/bin`, to put first on PATH: a shell script that runs `body`,
 * in which `$REAL_GIT` is the real git (a body that does not exit runs it after). Answers the folder.
 */
export function gitWrapper(dir: string, body: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nREAL_GIT='${realGit()}'\n${body}\nexec "$REAL_GIT" "$@"\n`, {
    mode: 0o755,
  });
  return bin;
}
