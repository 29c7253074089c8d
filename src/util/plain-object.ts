/** A JSON object or YAML mapping as parsed: an object, not null and not a list. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
