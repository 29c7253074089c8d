import * as z from 'zod';
import { parseDuration } from '../util/duration.js';

// The pieces each provider's section of the config is made of, so every section reads its values
// alike and words its mistakes alike.

/** What a value that is not what it should be was, in a message: `5`, `"soon"`. */
const shown = (input: unknown): string => {
  // YAML's .nan and .inf are numbers JSON has no words for.
  const text = typeof input === 'number' ? String(input) : (JSON.stringify(input) ?? String(input));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

// The command line's own words for a bad --min-age, so the file and the flag say the same.
const notADuration = (issue: { input?: unknown }): string =>
  `expected a duration such as 0s, 90s, 30m, 1h or 7d, got ${shown(issue.input)}`;

/** A duration: text such as `30m`; a bare number (`5`) is refused like any other value, by the same words. */
export const duration = z
  .string({ error: notADuration })
  .refine((text) => parseDuration(text) !== null, { error: notADuration });

export const nonEmptyString = z.string().min(1);
export const nonEmptyStrings = z.array(nonEmptyString).min(1);

// Only when the value is of no such shape; an empty list or path is named by its own check.
const notAPathList = (issue: { code?: string; input?: unknown }): string | undefined =>
  issue.code === 'invalid_type' ? `expected a path or a list of paths, got ${shown(issue.input)}` : undefined;

const onePath = nonEmptyString;
const listOfPaths = z.array(nonEmptyString, { error: notAPathList }).min(1);

/**
 * One path or a list of them, none empty, read as a list. Text is read as one path and anything
 * else as a list, so that a mistake is named where it is (`homes[1]`), not as a value that is
 * neither; the list's own words for a value of no such shape.
 */
export const pathList = z.unknown().transform((value, ctx): string[] => {
  const read = typeof value === 'string' ? onePath.safeParse(value) : listOfPaths.safeParse(value);
  if (read.success) return typeof read.data === 'string' ? [read.data] : read.data;
  for (const issue of read.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
  return z.NEVER;
});

/** Every provider is on unless its section says `enabled: false`. */
export const enabled = z.boolean().default(true);
