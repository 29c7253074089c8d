import { describe, expect, it } from 'vitest';
import { IncompleteAnswer, settle, unreadMessage } from '../../src/git/answer.js';
import { UNREAD_WARNINGS } from '../helpers/unread-warnings.js';

describe("git's warnings that part of its answer is missing (rule 22)", () => {
  it.each(UNREAD_WARNINGS)('sees %s', (line) => {
    expect(unreadMessage(`some other line\n${line}\n`)).toBe(line);
  });

  it.each([
    'fatal: not a git repository (or any of the parent directories): .git',
    "fatal: your current branch 'main' does not have any commits yet",
    "fatal: cannot change to '/gone': No such file or directory",
    "fatal: unable to read config file '/gone/config': No such file or directory",
    "fatal: bad revision 'HEAD'",
    "warning: unable to access '/srv/r/config': Is a directory",
    "warning: could not open directory 'gone/': No such file or directory",
    '',
  ])('takes %j for an answer', (stderr) => {
    expect(unreadMessage(stderr)).toBeNull();
  });

  it('makes such an answer no answer, whatever its exit code', () => {
    const answer = (code: number, stderr: string) => ({
      code,
      stdout: Buffer.from('out'),
      stderr: Buffer.from(stderr),
    });
    expect(settle('git status', answer(0, 'warning: something harmless\n'))).toEqual({
      code: 0,
      stdout: 'out',
      stderr: 'warning: something harmless\n',
    });
    for (const code of [0, 1, 128])
      expect(() => settle('git status', answer(code, `${UNREAD_WARNINGS[0]}\n`))).toThrow(IncompleteAnswer);
  });
});
