import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterEach } from 'vitest';

/**
 * Fault injection at the file-system boundary: replaces one function of node:fs (the tool reaches
 * it through src/safety/fs/) until the answered restore is called (or the test ends). The
 * replacement gets the real function, so it can do real work around the call: delete an entry
 * right before a real lstat, say.
 */
const fs = createRequire(import.meta.url)('node:fs') as Record<string, unknown>;
const restores: Array<() => void> = [];

export function hookFs<F extends (...args: never[]) => unknown>(
  name: string,
  replacement: (real: F, ...args: Parameters<F>) => ReturnType<F>,
): () => void {
  const real = fs[name] as F;
  fs[name] = (...args: Parameters<F>) => replacement(real, ...args);
  syncBuiltinESMExports();
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    fs[name] = real;
    syncBuiltinESMExports();
  };
  restores.push(restore);
  return restore;
}

/** Runs `work` with every hook made so far in place, then restores them all. */
export function restoreFs(): void {
  for (const restore of restores.splice(0).reverse()) restore();
}

afterEach(restoreFs);
