import type * as z from 'zod';
import { formatKey } from './key-path.js';

/**
 * The one line a refused value gets, from zod's first issue (zod lists them key by key in the
 * schema's order, a mapping's own keys before the keys it does not take, a list item by item):
 * `<key>: <message>`, or `unknown key <key>, <key>`.
 */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return '(top level): invalid';
  const key = formatKey(issue.path);
  if (issue.code === 'unrecognized_keys') {
    return `unknown key ${issue.keys.map((name) => (key ? `${key}.${name}` : name)).join(', ')}`;
  }
  return `${key || '(top level)'}: ${issue.message}`;
}

/** `value` as `schema` reads it, or the error `refuse` makes of what zod found wrong. */
export function parsedOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  refuse: (error: z.ZodError) => Error,
): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw refuse(parsed.error);
  return parsed.data;
}
