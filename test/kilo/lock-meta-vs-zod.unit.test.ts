import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lockMetaOf } from '../../src/providers/kilo/lock.js';

// The REFERENCE: Kilo's lock `meta.json` as zod read it before lock.ts checked it by hand, and
// what readMeta() made of the result. Kept here only, to show the file reads the same.
const lockMeta = z.looseObject({
  token: z.string(),
  pid: z.number(),
  hostname: z.string(),
  createdAt: z.unknown().transform((createdAt) => String(createdAt ?? '')),
});

function referenceMeta(value: unknown) {
  const parsed = lockMeta.safeParse(value);
  if (!parsed.success) return null;
  const { token, pid, hostname, createdAt } = parsed.data;
  return { token, pid, hostname, createdAt };
}

// JSON.parse makes no object without a prototype (String() of one throws, in zod's transform too).
/** What a read answers, or what it throws. */
function outcome(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (err) {
    return { thrown: String(err) };
  }
}

const anything = fc.anything({ maxDepth: 2, withBoxedValues: true, withDate: true });
const field = (good: fc.Arbitrary<unknown>) => fc.oneof({ weight: 4, arbitrary: good }, anything);
const meta = fc.record(
  {
    token: field(fc.uuid()),
    pid: field(fc.oneof(fc.integer(), fc.double())),
    hostname: field(fc.constantFrom('host', '')),
    createdAt: field(fc.constantFrom('2026-11-30T06:00:00.000Z', null, 0, '')),
    other: anything,
  },
  { requiredKeys: [] },
);

describe("Kilo's lock meta.json is read as the zod schema it replaced read it", () => {
  it('answers the same holder, or null, for any value', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: meta }, anything), (value) => {
        expect(outcome(() => lockMetaOf(value))).toStrictEqual(outcome(() => referenceMeta(value)));
      }),
      { numRuns: 10_000 },
    );
  });

  it('and for the values only JSON text makes', () => {
    const text = '{"token":"t","pid":1e999,"hostname":"h","createdAt":"c"}';
    expect(lockMetaOf(JSON.parse(text))).toStrictEqual(referenceMeta(JSON.parse(text)));
    expect(lockMetaOf(JSON.parse(text.replace('1e999', '4242')))).toStrictEqual(
      referenceMeta(JSON.parse(text.replace('1e999', '4242'))),
    );
  });
});
