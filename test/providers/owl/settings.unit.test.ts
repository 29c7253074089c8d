import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { type ReviewAfter, reviewAfterIn } from '../../../src/providers/owl/settings.js';

const FILE = '/h/.config/coding-owl/config.yaml';
const FALLBACK: ReviewAfter = { ms: 7 * 86_400_000, source: 'providers.owl.reviewAfter 7d' };
const read = (text: string) => reviewAfterIn(parse(text), FILE, FALLBACK);

describe("Owl's garbageCollection.reviewAfter", () => {
  it("takes Owl's own duration text, Go's or ours", () => {
    expect(read('garbageCollection:\n  reviewAfter: 336h\n  interval: 1h\n')).toEqual({
      ms: 336 * 3_600_000,
      source: `garbageCollection.reviewAfter 336h in ${FILE}`,
    });
    expect(read('garbageCollection: {reviewAfter: 1h30m}\nother: [1]\n').ms).toBe(90 * 60_000);
    expect(read('garbageCollection: {reviewAfter: " 1.5h "}\n').ms).toBe(90 * 60_000);
    expect(read('garbageCollection: {reviewAfter: 2d}\n').ms).toBe(2 * 86_400_000);
  });

  it('falls back without a word where the file says nothing of it, whatever its shape', () => {
    for (const text of ['', 'other: 1\n', '- a\n', 'garbageCollection: 5\n', 'garbageCollection: [a]\n']) {
      expect(read(text)).toEqual(FALLBACK);
    }
    expect(read('garbageCollection: {interval: 1h}\n')).toEqual(FALLBACK);
    expect(read('garbageCollection: {reviewAfter: null}\n')).toEqual(FALLBACK);
    expect(read('garbageCollection: {reviewAfter: }\n')).toEqual(FALLBACK);
  });

  it('falls back with a warning naming the file and the value when it is no duration', () => {
    const cases: Array<[string, string]> = [
      ['soon', '"soon"'],
      ['7', '7'],
      ['"1h 30m"', '"1h 30m"'],
      ['"-1h"', '"-1h"'],
      ['""', '""'],
      ['[1h]', '["1h"]'],
      ['{a: 1}', '{"a":1}'],
      ['true', 'true'],
    ];
    for (const [value, shown] of cases) {
      expect(read(`garbageCollection:\n  reviewAfter: ${value}\n`)).toEqual({
        ...FALLBACK,
        warning: `${FILE}: garbageCollection.reviewAfter ${shown} is no duration`,
      });
    }
  });
});
