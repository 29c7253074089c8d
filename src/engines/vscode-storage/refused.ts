import type { ProviderName, RootStatus } from '../../model/types.js';
import type { RefusedPlace } from './editors.js';

/**
 * The root entries of the places an extension's location was not followed to (rule 20): a link on
 * the way leads to another user's files. Each path once per provider: the products' state
 * databases are shared by every extension of that product.
 */
export function refusedRoots(
  provider: ProviderName,
  refused: readonly RefusedPlace[],
  already: readonly RootStatus[],
): RootStatus[] {
  const seen = new Set(already.map((root) => root.root));
  const found: RootStatus[] = [];
  for (const place of refused) {
    if (seen.has(place.root)) continue;
    seen.add(place.root);
    found.push({ provider, root: place.root, ok: false, error: place.detail });
  }
  return found;
}
