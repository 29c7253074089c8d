import path from 'node:path';
import { isInside } from '../inside.js';
import type { Owner } from './owner.js';

// Whose a location is, by path arithmetic alone: pure, so layouts that judges load may use it.

/**
 * Whose a location is (rule 20):
 * - `home`: derived from that home (inside it, or named by its user's variables or settings): the
 *   home's owner's;
 * - `owner`: another location's owner (a state folder named beside a data folder, a custom
 *   storage path an editor's settings name), `of` saying whose in words;
 * - `outside`: outside every home: the uid its layout names, else the owner of the first entry on
 *   its path that is not root's.
 */
export type LocationBasis = { home: string } | { owner: Owner; of: string } | { outside: { uid?: number } };

/** The basis of a location the config or a tool names: the home of the pass that holds it, else outside every home. */
export function basisOf(location: string, homes: readonly string[]): LocationBasis {
  const target = path.resolve(location);
  const holding = homes
    .map((home) => path.resolve(home))
    .filter((home) => isInside(home, target))
    .sort((a, b) => b.length - a.length)[0];
  return holding === undefined ? { outside: {} } : { home: holding };
}

/**
 * The basis of a location read beside a found one (Kilo's state folder beside its data folder, a
 * custom storage path an editor's settings name): the same home, or else the same owner.
 */
export function besideBasis(basis: LocationBasis, found: { path: string; owner: Owner }): LocationBasis {
  return 'home' in basis ? basis : { owner: found.owner, of: `the owner of ${found.path}` };
}
