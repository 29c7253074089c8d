import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { headerFields, parseLogHeader } from '../../src/providers/watchfire/session-logs.js';

// The REFERENCE: a session log's header as zod read it before session-logs.ts checked it by hand.
// Kept here only, to show headers read the same.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const logHeader = z.looseObject({
  ended_at: z
    .string()
    .regex(RFC3339)
    .transform((ended) => Date.parse(ended))
    .refine((endedAtMs) => !Number.isNaN(endedAtMs)),
  project_id: z
    .string()
    .optional()
    .transform((id) => id || null),
  status: z.string().default(''),
});

// The header's lines are split by the module's own headerFields, as they were before: only the
// check of the fields changed.
function referenceHeader(text: string): { projectId: string | null; endedAtMs: number; status: string } | null {
  const fields = headerFields(text);
  if (!fields) return null;
  const header = logHeader.safeParse(Object.fromEntries(fields));
  if (!header.success) return null;
  return { projectId: header.data.project_id, endedAtMs: header.data.ended_at, status: header.data.status };
}

const key = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('ended_at', 'project_id', 'status', ' status', 'agent', '__proto__', 'mode'),
  },
  fc.string({ maxLength: 4 }),
);
const value = fc.oneof(
  fc.constantFrom(
    '2026-11-30T06:00:00Z',
    '"2026-11-30T06:00:00.123+02:00"',
    '2026-02-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-30T25:61:00Z',
    '2026-11-30 06:00:00Z',
    '',
    "''",
    'p1',
    'done',
  ),
  fc.string({ maxLength: 8 }),
);
const line = fc.oneof({ weight: 8, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`) }, fc.string());
const header = fc
  .tuple(fc.array(line, { maxLength: 6 }), fc.boolean(), fc.boolean())
  .map(([lines, closed, crlf]) =>
    ['---', ...lines, ...(closed ? ['---', 'scrollback'] : [])].join(crlf ? '\r\n' : '\n'),
  );

describe('a session log header is read as the zod schema it replaced read it', () => {
  it('answers the same fields, or null, for any header', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: header }, fc.string()), (text) => {
        expect(parseLogHeader(text)).toStrictEqual(referenceHeader(text));
      }),
      { numRuns: 3_000 },
    );
  });
});
