import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patternsOverlap } from '../../src/config/glob-overlap.js';

/** The oracle: a one-component glob as a regular expression (`*` and `?` never match `/`). */
function globRegex(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    const close = glob.indexOf(']', i + 1);
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[' && close !== -1) {
      source += `[${glob.slice(i + 1, close).replace(/^!/, '^')}]`;
      i = close;
    } else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}

const nameChar = fc.constantFrom('a', 'b', '.', '-');
// `.` and `..` are not names: a path resolves them away.
const notDots = (text: string) => !/^\.+$/.test(text);
const name = fc.string({ unit: nameChar, minLength: 1, maxLength: 6 }).filter(notDots);
const glob = fc
  .string({ unit: fc.constantFrom('a', 'b', '.', '-', '*', '?', '[ab]', '[!a]'), minLength: 1, maxLength: 5 })
  .filter(notDots);

describe('patternsOverlap', () => {
  it('meets a name wherever the glob matches it, on either side', () => {
    fc.assert(
      fc.property(glob, name, (pattern, literal) => {
        const matches = globRegex(pattern).test(literal);
        expect(patternsOverlap(`/x/${pattern}`, `/x/${literal}/deeper`)).toBe(matches);
        expect(patternsOverlap(`/x/${literal}`, `/x/${pattern}`)).toBe(matches);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers the same for an absolute pattern asked about again', () => {
    expect(patternsOverlap('/home/*/.cursor/worktrees/*', '/home/ana/.cursor')).toBe(true);
    expect(patternsOverlap('/home/*/.cursor/worktrees/*', '/home/ana/.cursor')).toBe(true);
    expect(patternsOverlap('/home/*/.cursor/worktrees/*', '/home/ana/.codex')).toBe(false);
    expect(patternsOverlap('/home/*/.cursor/worktrees/*', '/home/ana/.codex')).toBe(false);
  });
});
