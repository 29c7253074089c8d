import type * as z from 'zod';
import { SourceOfTruthError } from '../../model/errors.js';
import { parsedOrThrow } from '../../util/zod-issue.js';

/**
 * `value` as `schema` reads it, or a SourceOfTruthError naming the source and what is wrong with
 * it, in the words the schema gives (the first thing wrong, in the order of its keys and items).
 */
export function readAs<Schema extends z.ZodType>(schema: Schema, value: unknown, source: string): z.output<Schema> {
  return parsedOrThrow(
    schema,
    value,
    (error) => new SourceOfTruthError(`${source}: ${error.issues[0]?.message ?? 'not what was expected'}`),
  );
}
