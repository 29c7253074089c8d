import type { Report } from '../model/types.js';

/**
 * `JSON.stringify(report, null, 2)` and a newline, in pieces: one for each top-level key and one
 * for each item. A pass over a million files has a report of several megabytes, and the string
 * made whole (and its bytes, made whole again for the write) was the pass's peak of memory.
 */
export function* reportJsonPieces(report: Report): Generator<string> {
  const entries = Object.entries(report).filter(([, value]) => JSON.stringify(value) !== undefined);
  if (entries.length === 0) {
    yield '{}\n';
    return;
  }
  yield '{';
  for (const [index, [key, value]] of entries.entries()) {
    const comma = index < entries.length - 1 ? ',' : '';
    if (key === 'items' && Array.isArray(value) && value.length > 0) {
      yield `\n  ${JSON.stringify(key)}: [`;
      for (const [at, item] of value.entries()) yield `\n    ${nested(item, 4)}${at < value.length - 1 ? ',' : ''}`;
      yield `\n  ]${comma}`;
    } else yield `\n  ${JSON.stringify(key)}: ${nested(value, 2)}${comma}`;
  }
  yield '\n}\n';
}

/** A value laid out as JSON.stringify lays it out `depth` spaces in: a JSON text holds no raw newline. */
function nested(value: unknown, depth: number): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replaceAll('\n', `\n${' '.repeat(depth)}`);
}
