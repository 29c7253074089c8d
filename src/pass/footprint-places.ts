import path from 'node:path';
import type { Logger } from 'pino';
import { globToRegExp, hasMagic } from '../config/homes.js';
import { errorMessage } from '../model/errors.js';
import type { ProviderName } from '../model/types.js';
import type { FootprintPlace, PlaceCategory } from '../provider-api/footprint.js';
import { readdirOrEmpty } from '../safety/fs/list.js';
import { lstatOrNull, realpathSync } from '../safety/fs/stat.js';
import { locate, type Located } from '../safety/owners/locations.js';

/** A place of a tool's state as found on disk: where it is, and who it is. */
export interface FoundPlace {
  provider: ProviderName;
  category: PlaceCategory;
  /** As its provider named it (a pattern's match: as found). */
  named: string;
  /** The same entry, every link on its way followed (each checked by the resolver of locations). */
  canonical: string;
  dev: number;
  ino: number;
}

/**
 * Finds the places a provider declares: each through the resolver of locations (rule 20: never
 * through a link to another user's files), then each match of its pattern below it, no link
 * followed there. A place that is not there is nothing; one the resolver refuses, or that cannot
 * be looked at, is left out, said once at debug level (the provider's own gathering says it).
 */
export async function findPlaces(
  provider: ProviderName,
  declared: readonly FootprintPlace[],
  log: Logger,
): Promise<FoundPlace[]> {
  const found: FoundPlace[] = [];
  for (const place of declared) {
    const base = path.resolve(place.path);
    let located: Located = locate(base, place.basis);
    if (located.state === 'absent' && place.pattern === undefined) located = locate(base, place.basis, 'file');
    if (located.state === 'refused' || located.state === 'unreadable') {
      log.debug({ provider, place: base, why: located.detail }, 'footprint place not read');
      continue;
    }
    if (located.state !== 'found') continue;
    let canonical: string;
    try {
      canonical = realpathSync(base);
    } catch (err) {
      log.debug({ provider, place: base, why: errorMessage(err) }, 'footprint place not read');
      continue;
    }
    const matches =
      place.pattern === undefined
        ? [{ named: base, canonical }]
        : (await expandBelow(canonical, place.pattern)).map((match) => ({
            named: path.join(base, path.relative(canonical, match)),
            canonical: match,
          }));
    for (const match of matches) {
      const stats = await lstatOrNull(match.canonical).catch(() => null);
      if (stats) found.push({ provider, category: place.category, ...match, dev: stats.dev, ino: stats.ino });
    }
  }
  return found;
}

/**
 * The entries below `base` that a pattern of names matches. Every folder on the way is a real
 * folder (a link is never followed below the place); the last name matches any entry.
 */
async function expandBelow(base: string, pattern: string): Promise<string[]> {
  const parts = pattern.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) return [];
  let current = [base];
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    const next: string[] = [];
    for (const folder of current) {
      if (!hasMagic(part)) {
        const stats = await lstatOrNull(path.join(folder, part)).catch(() => null);
        if (stats && (last || stats.isDirectory())) next.push(path.join(folder, part));
        continue;
      }
      const matcher = globToRegExp(part);
      for (const entry of await readdirOrEmpty(folder).catch(() => []))
        if ((last || entry.isDirectory()) && matcher.test(entry.name)) next.push(path.join(folder, entry.name));
    }
    current = next.sort();
  }
  return current;
}
