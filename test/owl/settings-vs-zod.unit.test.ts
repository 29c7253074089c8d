import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { parseOwlDuration, type ReviewAfter, reviewAfterIn } from '../../src/providers/owl/settings.js';

// The REFERENCE: Owl's config as zod read it before settings.ts checked it by hand, with the
// answer readReviewAfter() made of it. Kept here only, to show the setting reads the same.
// Go's duration text is read as before (not what this file compares).
const owlConfig = z
  .looseObject({ garbageCollection: z.looseObject({ reviewAfter: z.unknown() }).optional().catch(undefined) })
  .catch({});
const owlDuration = z.string().transform((text, ctx) => {
  const ms = parseOwlDuration(text);
  if (ms === null) ctx.addIssue({ code: 'custom', message: 'is no duration' });
  return ms ?? 0;
});
function referenceReviewAfter(doc: unknown, configFile: string, fallback: ReviewAfter): ReviewAfter {
  const value = owlConfig.parse(doc).garbageCollection?.reviewAfter;
  if (value === undefined || value === null) return fallback;
  const ms = owlDuration.safeParse(value);
  if (!ms.success)
    return {
      ...fallback,
      warning: `${configFile}: garbageCollection.reviewAfter ${JSON.stringify(value)} is no duration`,
    };
  return { ms: ms.data, source: `garbageCollection.reviewAfter ${value} in ${configFile}` };
}

const FILE = '/h/.owl/config.yaml';
const FALLBACK: ReviewAfter = { ms: 6.048e8, source: 'providers.owl.reviewAfter 7d' };

const anything = fc.jsonValue({ maxDepth: 2 });
const duration = fc.oneof(
  fc.constantFrom('168h', '1h30m', '1.5h', '7d', ' 90s ', '', '7', 'h', '1h 30m', '2w1d', '10µs', '1e3s', '-1h'),
  fc.string({ maxLength: 5 }),
);
const reviewAfter = fc.oneof(
  { weight: 4, arbitrary: duration },
  fc.array(duration, { minLength: 1, maxLength: 2 }),
  anything,
  fc.constant(null),
);
const garbageCollection = fc.oneof(
  { weight: 4, arbitrary: fc.record({ reviewAfter, keep: anything }, { requiredKeys: [] }) },
  anything,
);
const doc = fc.oneof(
  { weight: 4, arbitrary: fc.record({ garbageCollection, other: anything }, { requiredKeys: [] }) },
  anything,
);

describe("Owl's reviewAfter is read as the zod schemas it replaced read it", () => {
  it('answers the same for any value YAML makes of the file', () => {
    fc.assert(
      fc.property(doc, (value) => {
        // Through YAML and back, so the values are those a read of the file makes.
        const read: unknown = parse(stringify(value));
        expect(reviewAfterIn(read, FILE, FALLBACK)).toStrictEqual(referenceReviewAfter(read, FILE, FALLBACK));
      }),
      { numRuns: 5_000 },
    );
  });
});
