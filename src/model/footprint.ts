import type { FootprintCategory, FootprintEntry, ItemKind, ProviderName } from './types.js';

// The footprint: where each tool's disk goes, whatever the verdicts (the report's `footprint`).

/** Every category, in the order the report lists a provider's. */
const FOOTPRINT_CATEGORIES: readonly FootprintCategory[] = [
  'scratch',
  'transcripts',
  'logs',
  'databases',
  'checkpoints',
  'worktrees',
  'tool-output',
  'other',
];

/**
 * The category an item's bytes count in. A kind a pass may delete is `scratch` wherever it lies. Any
 * other kind is never deleted (a conversation folder, a job) or never loses a byte (a database whose
 * log is checkpointed stays a database): its bytes count by the place of the tool's layout they lie
 * in, and, where no place a provider declares holds them, in the category given here. A new kind
 * must say which it is.
 */
export const ITEM_CATEGORY: Readonly<Record<ItemKind, FootprintCategory>> = {
  'session-home': 'scratch',
  'checkpoint-repo': 'scratch',
  worktree: 'scratch',
  'worktree-admin': 'scratch',
  quarantine: 'scratch',
  'task-output': 'scratch',
  'git-garbage': 'scratch',
  staging: 'scratch',
  'owner-retention': 'scratch',
  'superseded-log-db': 'scratch',
  'task-folder': 'transcripts',
  job: 'worktrees',
  'wal-checkpoint': 'databases',
};

/** What growth reads of a previous report's footprint (whatever version wrote it). */
export type PreviousFootprint = ReadonlyArray<{ provider: ProviderName; category: string; bytes: number }>;

/**
 * The footprint with each entry's growth since `previous` (the footprint of the previous report,
 * or null when there is none to compare with). A category the previous report had, of a provider
 * this pass measured, that is now empty gets an entry of 0 bytes, so that its shrinking shows.
 */
export function withGrowth(
  entries: readonly FootprintEntry[],
  previous: PreviousFootprint | null,
  measured: readonly ProviderName[],
): FootprintEntry[] {
  if (previous === null) return entries.map(({ growthBytes: _, ...entry }) => entry);
  const key = (entry: { provider: ProviderName; category: string }) => `${entry.provider}\0${entry.category}`;
  const before = new Map(previous.map((entry) => [key(entry), entry.bytes]));
  const grown = entries.map((entry) => ({ ...entry, growthBytes: entry.bytes - (before.get(key(entry)) ?? 0) }));
  const now = new Set(entries.map(key));
  for (const old of previous) {
    const category = FOOTPRINT_CATEGORIES.find((each) => each === old.category);
    if (category && measured.includes(old.provider) && !now.has(key(old)) && old.bytes !== 0)
      grown.push({ provider: old.provider, category, bytes: 0, files: 0, largest: null, growthBytes: -old.bytes });
  }
  return sortFootprint(grown, measured);
}

/** In the order of the providers given (others after them, by name), then of FOOTPRINT_CATEGORIES. */
export function sortFootprint(
  entries: readonly FootprintEntry[],
  providers: readonly ProviderName[],
): FootprintEntry[] {
  const rank = (provider: ProviderName) => {
    const at = providers.indexOf(provider);
    return at === -1 ? providers.length : at;
  };
  return [...entries].sort(
    (a, b) =>
      rank(a.provider) - rank(b.provider) ||
      a.provider.localeCompare(b.provider) ||
      FOOTPRINT_CATEGORIES.indexOf(a.category) - FOOTPRINT_CATEGORIES.indexOf(b.category),
  );
}

/** The footprint's entries, largest first (ties in the report's order). */
export const largestFirst = (entries: readonly FootprintEntry[]): FootprintEntry[] =>
  entries
    .map((entry, at) => ({ entry, at }))
    .sort((a, b) => b.entry.bytes - a.entry.bytes || a.at - b.at)
    .map(({ entry }) => entry);
