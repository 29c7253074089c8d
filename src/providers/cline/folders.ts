// A workspace folder as Cline records it, by text alone: pure, so its judge may use it.

/** A workspace path as recorded, without a trailing slash; never resolved (the folder may be gone). */
export function normalizeFolder(folder: string): string {
  const trimmed = folder.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}
