import path from 'node:path';

/**
 * Paths by their resolved text, asked which of them hold a path or lie inside it: a question walks
 * the asked path's own folders up to `/`, not every path added. The answers are those of
 * `isInside` (./containment.ts) asked of every path added, by path arithmetic alone.
 */
export class PathIndex<T> {
  private readonly at = new Map<string, T[]>();
  private readonly atOrBelow = new Map<string, T[]>();

  add(entry: string, value: T): void {
    const resolved = path.resolve(entry);
    push(this.at, resolved, value);
    for (const folder of foldersUp(resolved)) push(this.atOrBelow, folder, value);
  }

  /** What was added at `entry` or at a folder that holds it. */
  holding(entry: string): T[] {
    const found: T[] = [];
    for (const folder of foldersUp(path.resolve(entry))) {
      const here = this.at.get(folder);
      if (here) found.push(...here);
    }
    return found;
  }

  /** What was added at `entry` or inside it. */
  within(entry: string): readonly T[] {
    return this.atOrBelow.get(path.resolve(entry)) ?? [];
  }

  /** Whether anything was added at `entry`, inside it, or at a folder that holds it. */
  overlaps(entry: string): boolean {
    return this.within(entry).length > 0 || this.holding(entry).length > 0;
  }
}

/** A resolved path and every folder above it, up to the root. */
export function* foldersUp(resolved: string): Generator<string> {
  let at = resolved;
  for (;;) {
    yield at;
    const parent = path.dirname(at);
    if (parent === at) return;
    at = parent;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
