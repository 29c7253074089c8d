import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The path of a real program on this machine. */
function realProgram(name: string): string {
  return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
}

const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A `git` of the test's own in `<dir>/late-bin`, first on PATH: the first time it runs with
 * arguments that hold every word of `when` (any run when empty), once the file `armedBy` exists
 * (at once without one), it writes `content` to `file` and dates the file and its folder `setBack`
 * (as `tar x` or `cp -p` would), then runs the real git. Answers the folder and a check that the
 * write happened.
 */
export function lateWriter(
  dir: string,
  write: { file: string; content: string; when?: string[]; setBack?: string; armedBy?: string },
): { bin: string; wrote: () => boolean } {
  const bin = path.join(dir, 'late-bin');
  mkdirSync(bin, { recursive: true });
  const done = path.join(dir, 'late-write.done');
  const content = path.join(dir, 'late-write.content');
  writeFileSync(content, write.content);
  const match = [
    ...(write.when ?? []).map((word) => `case " $* " in *' ${word} '*) ;; *) go=no ;; esac`),
    ...(write.armedBy ? [`[ -e ${quoted(write.armedBy)} ] || go=no`] : []),
  ].join('\n');
  const setBack = write.setBack
    ? `touch -h -d ${quoted(write.setBack)} ${quoted(write.file)} ${quoted(path.dirname(write.file))}`
    : '';
  writeFileSync(
    path.join(bin, 'git'),
    [
      '#!/bin/sh',
      'go=yes',
      match,
      `if [ "$go" = yes ] && mkdir ${quoted(done)} 2>/dev/null; then`,
      `  mkdir -p ${quoted(path.dirname(write.file))}`,
      `  cat ${quoted(content)} > ${quoted(write.file)}`,
      `  ${setBack || ':'}`,
      'fi',
      `exec ${quoted(realProgram('git'))} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { bin, wrote: () => existsSync(done) };
}

/** A `find` that records the roots it is given in `<dir>/find.log`, then runs the real one. */
export function loggedFind(dir: string): { bin: string; walked: (p: string) => boolean } {
  const bin = path.join(dir, 'find-bin');
  mkdirSync(bin, { recursive: true });
  const log = path.join(dir, 'find.log');
  writeFileSync(
    path.join(bin, 'find'),
    `#!/bin/sh\nprintf '%s\\n' "$@" >> ${quoted(log)}\nexec ${quoted(realProgram('find'))} "$@"\n`,
    { mode: 0o755 },
  );
  return { bin, walked: (p) => existsSync(log) && readFileSync(log, 'utf8').split('\n').includes(p) };
}
