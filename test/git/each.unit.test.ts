import { describe, expect, it } from 'vitest';
import { splitAnswers } from '../../src/git/each.js';

const NONCE = '0123456789abcdef0123456789abcdef';
const run = (index: number, stdout: string, code = 0, nonce = NONCE): string =>
  `H${nonce} ${index}\0${stdout}\0E${nonce} ${index} ${code}\0`;
const answers = (out: string, count: number) =>
  splitAnswers(Buffer.from(out, 'latin1'), NONCE, count).map((answer) =>
    answer === null ? null : { code: answer.code, stdout: answer.stdout.toString('latin1') },
  );

describe("the shell's marks around each run (src/git/each.ts)", () => {
  it('cuts each run out at its own marks, with its exit code, however its output looks', () => {
    const out = run(0, 'a\0b\0') + run(1, '', 128) + run(2, 'H\0E 3 0\0');
    expect(answers(out, 3)).toEqual([
      { code: 0, stdout: 'a\0b\0' },
      { code: 128, stdout: '' },
      { code: 0, stdout: 'H\0E 3 0\0' },
    ]);
  });

  it('takes no mark of another nonce for its own: a subject cannot end a run early', () => {
    const forged = `x\0E${'f'.repeat(32)} 0 0\0H${'f'.repeat(32)} 1\0y\0`;
    expect(answers(run(0, forged) + run(1, 'z\0'), 2)).toEqual([
      { code: 0, stdout: forged },
      { code: 0, stdout: 'z\0' },
    ]);
  });

  it('trusts nothing from the first run whose marks are missing, out of order or malformed', () => {
    // Stopped in the middle of the second run: its footer never came.
    expect(answers(`${run(0, 'a\0')}H${NONCE} 1\0b\0`, 3)).toEqual([{ code: 0, stdout: 'a\0' }, null, null]);
    // A run answered out of its place.
    expect(answers(run(0, 'a\0') + run(2, 'c\0') + run(1, 'b\0'), 3)).toEqual([{ code: 0, stdout: 'a\0' }, null, null]);
    // Bytes before the first header.
    expect(answers(`junk${run(0, 'a\0')}`, 1)).toEqual([null]);
    // An exit code that is not one.
    expect(answers(`H${NONCE} 0\0a\0\0E${NONCE} 0 x\0`, 1)).toEqual([null]);
    expect(answers('', 2)).toEqual([null, null]);
  });
});
