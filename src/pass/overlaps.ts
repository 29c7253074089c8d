import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import type { ClaimContext, ClaimedArea, Provider } from '../provider-api/provider.js';
import { isInside } from '../safety/containment.js';
import { realpathSync } from '../safety/fs/stat.js';
import { PathIndex } from '../safety/path-index.js';
import { createPlaceFinder, type Place } from '../safety/place.js';

/**
 * The first two areas of different owners that overlap: one is the other, or inside it, however
 * each is reached (a link, `..`, a bind mount: folders that exist are compared by identity, the
 * others by canonical path). Two owners judging the same folders would each give their own verdict
 * (one may delete what the other calls unfinished), so such a config is refused.
 */
function firstOverlap(areas: readonly ClaimedArea[]): [ClaimedArea, ClaimedArea] | null {
  const placeOf = createPlaceFinder();
  const resolved = areas.map((area) => ({ area, place: placeOf(area.folder), at: canonicalFolder(area.folder) }));
  if (!anyOverlap(resolved)) return null;
  for (let a = 0; a < resolved.length; a += 1) {
    for (let b = a + 1; b < resolved.length; b += 1) {
      const first = resolved[a] as (typeof resolved)[number];
      const second = resolved[b] as (typeof resolved)[number];
      if (first.area.owner === second.area.owner) continue;
      const sameOrNested =
        first.place.self === second.place.self ||
        first.place.above.includes(second.place.self) ||
        second.place.above.includes(first.place.self) ||
        isInside(first.at, second.at) ||
        isInside(second.at, first.at);
      if (sameOrNested) return [first.area, second.area];
    }
  }
  return null;
}

/**
 * Whether any two areas of different owners overlap, asked of each area's own folders up to `/`
 * rather than of every other area; where some do, firstOverlap finds the first pair in order.
 */
function anyOverlap(resolved: ReadonlyArray<{ area: ClaimedArea; place: Place; at: string }>): boolean {
  const byIdentity = new Map<string, Set<string>>();
  const byPath = new PathIndex<string>();
  for (const { area, place, at } of resolved) {
    byIdentity.set(place.self, (byIdentity.get(place.self) ?? new Set()).add(area.owner));
    byPath.add(at, area.owner);
  }
  const another = (owners: Iterable<string> | undefined, mine: string) =>
    [...(owners ?? [])].some((owner) => owner !== mine);
  // Each pair is seen from its inner area: the other is the same entry or one of the folders above.
  return resolved.some(
    ({ area, place, at }) =>
      [place.self, ...place.above].some((identity) => another(byIdentity.get(identity), area.owner)) ||
      another(byPath.holding(at), area.owner),
  );
}

/** Every area the enabled providers claim; throws a ConfigError (exit 2) naming two that overlap. */
export async function rejectOverlappingRoots(providers: readonly Provider[], ctx: ClaimContext): Promise<void> {
  const areas: ClaimedArea[] = [];
  for (const provider of providers) {
    if (!ctx.config.providers[provider.name]?.enabled || !provider.claimedAreas) continue;
    areas.push(...(await provider.claimedAreas(ctx)));
  }
  const overlap = firstOverlap(areas);
  if (!overlap) return;
  const [a, b] = overlap;
  throw new ConfigError(
    `${a.owner} (${a.folder}) and ${b.owner} (${b.folder}) overlap: both would judge the same folders; ` +
      'change the roots, or disable one of them',
  );
}

function canonicalFolder(folder: string): string {
  const absolute = path.resolve(folder);
  try {
    return realpathSync(absolute);
  } catch {
    // Not there yet: its nearest existing ancestor carries the links.
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(canonicalFolder(parent), path.basename(absolute));
  }
}
