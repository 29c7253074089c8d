import * as z from 'zod';
import { parseDuration } from '../util/duration.js';

// The pieces each provider's section of the config is made of, so every section reads its values
// alike and words its mistakes alike.

export const duration = z.string().refine((text) => parseDuration(text) !== null, {
  message: 'expected a duration such as 0s, 90s, 30m, 1h or 7d',
});

export const nonEmptyString = z.string().min(1);
export const nonEmptyStrings = z.array(nonEmptyString).min(1);

/** One path or a list of them, none empty, read as a list. */
export const pathList = z
  .union([nonEmptyString, nonEmptyStrings])
  .transform((value) => (typeof value === 'string' ? [value] : value));

/** Every provider is on unless its section says `enabled: false`. */
export const enabled = z.boolean().default(true);
