/**
 * A value made on first use and kept. For what a module would otherwise build as it loads (zod
 * schemas, mostly) when most passes never use it: every start pays for a module's top level.
 */
export function lazily<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
