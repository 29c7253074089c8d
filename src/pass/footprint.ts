import path from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../model/errors.js';
import { ITEM_CATEGORY, sortFootprint } from '../model/footprint.js';
import type { FootprintCategory, FootprintEntry, ProviderName, ReportItem, RootStatus } from '../model/types.js';
import type { GatherContext, Provider } from '../provider-api/provider.js';
import { escapeBytes } from '../safety/fs/names.js';
import { lstatOrNullSync } from '../safety/fs/stat.js';
import { largerFile, largestFilePath, measureTree, type LargestFile, type TreeFacts } from '../safety/walk/walk.js';
import { findPlaces, type FoundPlace } from './footprint-places.js';

// The footprint: where each tool's disk goes, by category, whatever the verdicts (src/model/footprint.ts).

export interface FootprintInput {
  /** The providers the pass reconciled, in its order. */
  providers: readonly Provider[];
  /** What each provider is told when asked for its places (the context of its gathering). */
  contextFor: (provider: Provider) => GatherContext;
  /** The roots each provider's gather answered in this pass. */
  roots: readonly RootStatus[];
  /** Every verdict of the plan: the items, measured as the plan saw them. */
  items: readonly ReportItem[];
  /** The pass's walk of a tree, where it walked it already. */
  walked: (root: string) => TreeFacts | undefined;
  log: Logger;
}

/** An item of the plan, by identity, with the walk the pass made of it. */
interface ItemAt {
  item: ReportItem;
  path: string;
  dev: number;
  ino: number;
  name: string;
  scratch: boolean;
  facts: TreeFacts | undefined;
  /** Another item or a place lies in it: its own walk would count their bytes too. */
  holds: boolean;
  /** It lies in an item of a kind a pass may delete, whose walk has its bytes. */
  inScratch: boolean;
  /** It lies in a place: that place's walk meets it (or, holding something, walks it). */
  inPlace: boolean;
}

/** What the walk of a place leaves out: an item or another place, by identity and name. */
type Apart = { what: 'place' } | { what: 'scratch' } | { what: 'item'; at: ItemAt };

/** The bytes, files and largest file of one provider's category so far. */
interface Tally {
  provider: ProviderName;
  category: FootprintCategory;
  bytes: number;
  files: number;
  largest: { file: LargestFile; root: string } | null;
}

const identityKey = (dev: number, ino: number): string => `${dev}:${ino}`;

/**
 * Measures the footprint of a pass (after its plan, before anything is deleted: the disk as the
 * pass found it). Items of the kinds a pass may delete are `scratch`, by the walks the plan made of
 * them. Every place the providers declare is walked once, leaving out the items and the places in
 * it (each counted on its own), so each byte counts once. An item of another kind (a conversation
 * folder, a database) counts in the place it lies in, by the plan's walk of it where nothing else
 * lies in it; one in no place counts in its kind's category (ITEM_CATEGORY).
 */
export async function measureFootprint(input: FootprintInput): Promise<FootprintEntry[]> {
  const { log } = input;
  const started = Date.now();
  const places = await declaredPlaces(input);
  const items = itemsOf(input);
  const placePaths = new Set(places.flatMap((place) => [place.named, place.canonical]));
  const kept = places.filter((place) => !placeInScratch(place, items));
  for (const at of items.values()) if (!at.scratch) at.inPlace = selfOrAbove(at.path, (p) => placePaths.has(p));

  // By inode, then device and name: a walk asks of every entry, and makes no string to ask.
  const apart = new Map<number, Array<{ dev: number; name: string; apart: Apart }>>();
  const setApart = (dev: number, ino: number, name: string, what: Apart) => {
    const list = apart.get(ino) ?? [];
    list.push({ dev, name, apart: what });
    apart.set(ino, list);
  };
  const apartAt = (dev: number, ino: number, name: string): Apart | undefined =>
    apart.get(ino)?.find((each) => each.dev === dev && each.name === name)?.apart;
  for (const place of kept) setApart(place.dev, place.ino, path.basename(place.canonical), { what: 'place' });
  // An item that is a place itself is measured as that place.
  for (const at of items.values()) {
    if (at.scratch) setApart(at.dev, at.ino, at.name, { what: 'scratch' });
    else if (!at.holds && !at.inScratch && at.facts && !apartAt(at.dev, at.ino, at.name))
      setApart(at.dev, at.ino, at.name, { what: 'item', at });
  }

  const tallies = new Map<string, Tally>();
  const add = (provider: ProviderName, category: FootprintCategory, facts: TreeFacts, root: string) => {
    const id = `${provider}\0${category}`;
    const tally = tallies.get(id) ?? { provider, category, bytes: 0, files: 0, largest: null };
    tally.bytes += facts.bytes;
    tally.files += facts.files;
    if (facts.largest && largerFile(facts.largest, tally.largest?.file ?? null))
      tally.largest = { file: facts.largest, root };
    tallies.set(id, tally);
  };
  const counted = new Set<ItemAt>();
  const walkPlace = (provider: ProviderName, category: FootprintCategory, root: string) => {
    const reached: ItemAt[] = [];
    const facts = measureTree(root, undefined, (entry, name) => {
      const found = apartAt(entry.dev, entry.ino, name);
      if (found?.what === 'item') reached.push(found.at);
      return found !== undefined;
    });
    if (facts.error)
      log.debug({ provider, place: root, error: facts.error }, 'part of a footprint place cannot be read');
    add(provider, category, facts, root);
    for (const at of reached)
      if (!counted.has(at)) {
        counted.add(at);
        add(provider, category, at.facts as TreeFacts, at.path);
      }
  };

  const byIdentity = new Map([...items.values()].map((at) => [identityKey(at.dev, at.ino), at]));
  const holding = placesHolding(kept, items);
  for (const place of kept) {
    const same = byIdentity.get(identityKey(place.dev, place.ino));
    // A place with nothing in it that the pass walked already (for an item, or a provider's report of it): that walk is its measure.
    const walked = holding.has(place) ? undefined : (input.walked(place.named) ?? input.walked(place.canonical));
    try {
      if (same && !same.scratch && !same.holds && same.facts && !counted.has(same)) {
        counted.add(same);
        add(place.provider, place.category, same.facts, same.path);
      } else if (walked) add(place.provider, place.category, walked, place.canonical);
      else walkPlace(place.provider, place.category, place.canonical);
    } catch (err) {
      log.debug({ provider: place.provider, place: place.named, error: errorMessage(err) }, 'footprint place not read');
    }
  }
  for (const at of items.values()) {
    if (at.inScratch || !at.facts) continue;
    const { provider, kind } = at.item;
    if (at.scratch) add(provider, 'scratch', at.facts, at.path);
    // An item no place holds counts in its kind's category; one holding others is walked without them.
    else if (!counted.has(at) && !at.inPlace) {
      counted.add(at);
      if (at.holds) walkPlace(provider, ITEM_CATEGORY[kind], at.path);
      else add(provider, ITEM_CATEGORY[kind], at.facts, at.path);
    } else if (!counted.has(at) && !at.holds) add(provider, ITEM_CATEGORY[kind], at.facts, at.path);
  }

  const entries = [...tallies.values()]
    .filter((tally) => tally.files > 0 || tally.bytes > 0)
    .map((tally): FootprintEntry => {
      const named = tally.largest ? largestFilePath(tally.largest.root, tally.largest.file) : null;
      return {
        provider: tally.provider,
        category: tally.category,
        bytes: tally.bytes,
        files: tally.files,
        largest:
          named === null || !tally.largest ? null : { path: escapeBytes(named), bytes: tally.largest.file.bytes },
      };
    });
  log.debug({ places: kept.length, items: items.size, ms: Date.now() - started }, 'footprint measured');
  return sortFootprint(
    entries,
    input.providers.map((provider) => provider.name),
  );
}

/** Every place the providers declare, found on disk; a place declared twice (by identity) counts for the first. */
async function declaredPlaces(input: FootprintInput): Promise<FoundPlace[]> {
  const places: FoundPlace[] = [];
  const seen = new Set<string>();
  for (const provider of input.providers) {
    if (!provider.footprint) continue;
    const ctx = input.contextFor(provider);
    let found: FoundPlace[];
    try {
      const gathered = input.roots.filter((root) => root.provider === provider.name);
      found = await findPlaces(provider.name, await provider.footprint(ctx, gathered), ctx.log);
    } catch (err) {
      input.log.warn({ provider: provider.name, err }, "the provider's footprint places could not be listed");
      continue;
    }
    for (const place of found) {
      const key = identityKey(place.dev, place.ino);
      if (seen.has(key)) continue;
      seen.add(key);
      places.push(place);
    }
  }
  return places;
}

/** The plan's items that have a path on disk, by that path, each with what lies in it or around it. */
function itemsOf(input: FootprintInput): Map<string, ItemAt> {
  const items = new Map<string, ItemAt>();
  for (const item of input.items) {
    if (item.path === null) continue;
    const target = path.resolve(item.path);
    if (items.has(target)) continue;
    // The plan's walk knows who the item is; one it did not walk is looked at now.
    const facts = input.walked(target);
    const identity = facts ?? lstatOrNull(target);
    if (!identity) continue;
    items.set(target, {
      item,
      path: target,
      dev: identity.dev,
      ino: identity.ino,
      name: path.basename(target),
      scratch: ITEM_CATEGORY[item.kind] === 'scratch',
      facts,
      holds: false,
      inScratch: false,
      inPlace: false,
    });
  }
  for (const at of items.values())
    selfOrAbove(path.dirname(at.path), (above) => {
      const outer = items.get(above);
      if (!outer) return false;
      outer.holds = true;
      if (outer.scratch) at.inScratch = true;
      return false;
    });
  return items;
}

/**
 * Whether a place is or lies in an item a pass may delete (that item's walk has it); marks the
 * other items it lies in as holding something.
 */
function placeInScratch(place: FoundPlace, items: ReadonlyMap<string, ItemAt>): boolean {
  let inScratch = false;
  for (const spelling of new Set([place.named, place.canonical])) {
    if (items.get(spelling)?.scratch) inScratch = true;
    selfOrAbove(path.dirname(spelling), (above) => {
      const outer = items.get(above);
      if (!outer) return false;
      if (outer.scratch) inScratch = true;
      else outer.holds = true;
      return false;
    });
  }
  return inScratch;
}

/** The places in which an item or another place lies, by path. */
function placesHolding(places: readonly FoundPlace[], items: ReadonlyMap<string, ItemAt>): Set<FoundPlace> {
  const byPath = new Map<string, FoundPlace[]>();
  for (const place of places)
    for (const spelling of new Set([place.named, place.canonical]))
      byPath.set(spelling, [...(byPath.get(spelling) ?? []), place]);
  const holding = new Set<FoundPlace>();
  const markAbove = (start: string) =>
    selfOrAbove(path.dirname(start), (above) => {
      for (const place of byPath.get(above) ?? []) holding.add(place);
      return false;
    });
  for (const at of items.values()) markAbove(at.path);
  for (const place of places) for (const spelling of new Set([place.named, place.canonical])) markAbove(spelling);
  return holding;
}

function lstatOrNull(target: string): { dev: number; ino: number } | null {
  try {
    return lstatOrNullSync(target);
  } catch {
    return null;
  }
}

/** Calls `test` on a path and each folder above it, up to `/`, until it answers true; answers whether one did. */
function selfOrAbove(start: string, test: (p: string) => boolean): boolean {
  for (let at = start; ; at = path.dirname(at)) {
    if (test(at)) return true;
    if (path.dirname(at) === at) return false;
  }
}
