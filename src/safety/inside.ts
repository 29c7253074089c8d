import path from 'node:path';

// Containment by path arithmetic alone: pure, so judges may use it.

/** True when `child` is `parent` itself or below it, by path arithmetic (never a prefix test). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  if (relative === '') return true;
  if (path.isAbsolute(relative)) return false;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}

/** True when `child` is strictly below `parent`. */
export function isStrictlyInside(parent: string, child: string): boolean {
  return isInside(parent, child) && path.relative(parent, child) !== '';
}
