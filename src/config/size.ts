import * as z from 'zod';

/** Sizes as the config writes them (`100B`, `512KiB`, `64MiB`, `1GiB`): binary units, whole numbers. */
const UNIT_BYTES: Record<string, number> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

const SIZE = /^(\d+)(B|KiB|MiB|GiB|TiB)$/;

/** Parses `100B`, `512KiB`, `64MiB`, `1GiB`; null when the text is no size (a bare number is none). */
export function parseSize(text: string): number | null {
  const match = SIZE.exec(text);
  if (!match) return null;
  const bytes = Number(match[1]) * (UNIT_BYTES[match[2] as string] as number);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** What a value that is no size was, in the message: `5`, `"64MB"`. */
const shown = (input: unknown): string =>
  typeof input === 'number' ? String(input) : (JSON.stringify(input) ?? String(input));

const notASize = (issue: { input?: unknown }): string =>
  `expected a size such as 100B, 512KiB, 64MiB or 1GiB, got ${shown(issue.input)}`;

/** A size: text such as `64MiB`; a bare number (`5`) is refused like any other value, by the same words. */
export const size = z.string({ error: notASize }).refine((text) => parseSize(text) !== null, { error: notASize });
