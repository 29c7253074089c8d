import { describe, expect, it } from 'vitest';
import { isInside } from '../../src/safety/containment.js';
import { PathIndex } from '../../src/safety/path-index.js';

/** Paths built from a few names, the awkward ones included: `..x`, `.`, `..`, a trailing slash, `/`. */
function randomPaths(seed: number, count: number): string[] {
  const names = ['a', 'b', 'ab', '..x', 'x..', '.', '..', 'a b', 'é'];
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  return Array.from({ length: count }, () => {
    const depth = next(5);
    const parts = Array.from({ length: depth }, () => names[next(names.length)] as string);
    return `/${parts.join('/')}${next(4) === 0 ? '/' : ''}`;
  });
}

describe('the index of paths', () => {
  it('answers what asking isInside of every path added answers, for every pair of many paths', () => {
    for (const seed of [1, 2, 3, 4]) {
      const added = randomPaths(seed, 60);
      const asked = randomPaths(seed + 100, 60);
      const index = new PathIndex<number>();
      for (const [k, entry] of added.entries()) index.add(entry, k);
      for (const entry of asked) {
        const holding = added.flatMap((other, k) => (isInside(other, entry) ? [k] : []));
        const within = added.flatMap((other, k) => (isInside(entry, other) ? [k] : []));
        expect(
          index.holding(entry).sort((x, y) => x - y),
          entry,
        ).toEqual(holding);
        expect(
          [...index.within(entry)].sort((x, y) => x - y),
          entry,
        ).toEqual(within);
        expect(index.overlaps(entry), entry).toBe(holding.length + within.length > 0);
      }
    }
  });

  it('tells a sibling that shares a prefix from a folder inside', () => {
    const index = new PathIndex<string>();
    index.add('/home/ana', 'ana');
    expect(index.overlaps('/home/anabel')).toBe(false);
    expect(index.holding('/home/ana/x/../y')).toEqual(['ana']);
    expect(index.within('/home')).toEqual(['ana']);
    expect(index.within('/')).toEqual(['ana']);
  });
});
