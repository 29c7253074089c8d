import type { SessionInfo } from './chat-record.js';

// Gemini CLI's own session retention (0.61.0: packages/cli/src/utils/sessionCleanup.ts
// `cleanupExpiredSessions`, `identifySessionsToDelete`, `validateRetentionConfig`; the settings
// as packages/cli/src/config/settings.ts merges them). Pure.

/** One settings file as read: its path, and the value of its `general` key (absent: undefined). */
export interface SettingsLayer {
  file: string;
  general: unknown;
}

/** The schema's defaults (`settingsSchema.ts`): they apply even when no file sets the key. */
const DEFAULT_RETENTION = { enabled: true, maxAge: '30d', minRetention: '1d' } as const;

const DEFAULT_MIN_RETENTION_MS = 86_400_000;

const UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000 };

/** What one reading of the settings makes of the rule. */
export type RetentionRule =
  | { applies: false; why: string; minRetentionMs: number }
  | {
      applies: true;
      maxAgeMs: number | null;
      maxCount: number | null;
      minRetentionMs: number;
      /** The rule in words, with where it comes from: `maxAge 30d (the defaults)`. */
      words: string;
    };

type Json = Record<string, unknown>;
const isPlainObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The `general.sessionRetention` Gemini CLI ends up with: the defaults, then each layer in order
 * (system defaults, user, workspace, system), merged key by key as its `customDeepMerge` does (an
 * object into an object; anything else replaces).
 */
function mergedRetention(layers: readonly SettingsLayer[]): { value: unknown; from: string[] } {
  const general: Json = { sessionRetention: { ...DEFAULT_RETENTION } };
  const from: string[] = [];
  for (const layer of layers) {
    if (layer.general === undefined) continue;
    if (!isPlainObject(layer.general)) {
      // A `general` that is no object replaces the whole of it.
      delete general.sessionRetention;
      if (layer.general !== null) from.push(layer.file);
      continue;
    }
    const given = layer.general.sessionRetention;
    if (given === undefined) continue;
    from.push(layer.file);
    const current = general.sessionRetention;
    if (isPlainObject(current) && isPlainObject(given)) {
      for (const [key, value] of Object.entries(given)) if (value !== undefined) current[key] = value;
    } else general.sessionRetention = isPlainObject(given) ? { ...given } : given;
  }
  return { value: general.sessionRetention, from };
}

/** `<number><h|d|w|m>`, more than zero, as `parseRetentionPeriod` reads it; null for anything else. */
function period(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d+)([dhwm])$/.exec(value);
  if (!match) return null;
  const count = Number.parseInt(match[1] as string, 10);
  return count === 0 ? null : count * (UNITS[match[2] as string] as number);
}

/** A value that names an environment variable (`$X`, `${X}`): Gemini CLI expands it from its own environment, which the pass cannot know. */
const namesVariable = (value: unknown): boolean => typeof value === 'string' && /\$(?:\w+|\{[^}]+\})/.test(value);

/**
 * The rule one reading of the settings gives, as `validateRetentionConfig` would take it: not
 * enabled, a `maxAge` that does not parse, one shorter than `minRetention`, a `maxCount` under 1 or
 * neither of them set all turn the cleanup off. A `maxCount` that is no number is left out (Gemini
 * CLI compares it as it is; this pass only ever keeps more).
 */
export function retentionRule(layers: readonly SettingsLayer[]): RetentionRule {
  const { value, from } = mergedRetention(layers);
  const source = from.length === 0 ? 'the defaults' : `${from.join(' over ')} over the defaults`;
  const retention = isPlainObject(value) ? value : {};
  const minRetentionMs = period(retention.minRetention || DEFAULT_RETENTION.minRetention) ?? DEFAULT_MIN_RETENTION_MS;
  const off = (why: string): RetentionRule => ({ applies: false, why: `${why} (${source})`, minRetentionMs });
  const named = Object.entries(retention).find(([, each]) => namesVariable(each));
  if (named) return off(`sessionRetention.${named[0]} names an environment variable, ${JSON.stringify(named[1])}`);
  if (!retention.enabled) return off('sessionRetention is not enabled');
  let maxAgeMs: number | null = null;
  if (retention.maxAge) {
    maxAgeMs = period(retention.maxAge);
    if (maxAgeMs === null) return off(`sessionRetention.maxAge ${JSON.stringify(retention.maxAge)} does not parse`);
    if (maxAgeMs < minRetentionMs) return off('sessionRetention.maxAge is shorter than its minRetention');
  }
  let maxCount: number | null = null;
  if (retention.maxCount !== undefined) {
    const count = retention.maxCount;
    if (count === null || (typeof count === 'number' && count < 1)) return off('sessionRetention.maxCount is under 1');
    if (typeof count === 'number' && Number.isFinite(count)) maxCount = count;
  }
  if (maxAgeMs === null && retention.maxCount === undefined)
    return off('sessionRetention sets neither maxAge nor maxCount');
  const parts = [
    ...(maxAgeMs === null ? [] : [`maxAge ${String(retention.maxAge)}`]),
    ...(maxCount === null ? [] : [`maxCount ${maxCount}`]),
  ];
  return { applies: true, maxAgeMs, maxCount, minRetentionMs, words: `${parts.join(', ')} (${source})` };
}

/** One chat file, as the cleanup lists it (`chats/session-*.json[l]`, sorted by name). */
export interface ChatEntry {
  name: string;
  info: SessionInfo;
}

/** Why the rule selects a chat file. */
export type Selected = 'empty' | 'expired' | 'beyond-count';

/**
 * The chat files one rule deletes, as `identifySessionsToDelete` picks them with no session
 * current (no gemini runs in the project): every one the cleanup cannot read as a resumable
 * session, at any age; then, newest first by `lastUpdated`, those older than `maxAge` and those
 * past the first `maxCount`. Where a timestamp does not parse, the order is unknown and no file is
 * selected by count.
 */
export function selectByRule(entries: readonly ChatEntry[], rule: RetentionRule, nowMs: number): Map<string, Selected> {
  const selected = new Map<string, Selected>();
  if (!rule.applies) return selected;
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of sorted) if (entry.info === null) selected.set(entry.name, 'empty');
  const valid = sorted.filter((entry): entry is ChatEntry & { info: { lastUpdatedMs: number } } => entry.info !== null);
  const byNewest = [...valid].sort((a, b) => b.info.lastUpdatedMs - a.info.lastUpdatedMs);
  const ordered = valid.every((entry) => Number.isFinite(entry.info.lastUpdatedMs));
  byNewest.forEach((entry, index) => {
    if (rule.maxAgeMs !== null && entry.info.lastUpdatedMs < nowMs - rule.maxAgeMs) selected.set(entry.name, 'expired');
    else if (rule.maxCount !== null && ordered && index >= rule.maxCount) selected.set(entry.name, 'beyond-count');
  });
  return selected;
}

/**
 * The chat files every reading of the settings selects (a file goes only if each reading Gemini CLI
 * could be running with deletes it), each with the first reading's why.
 */
export function selectAcross(
  entries: readonly ChatEntry[],
  rules: readonly RetentionRule[],
  nowMs: number,
): Map<string, Selected> {
  const [first, ...rest] = rules.map((rule) => selectByRule(entries, rule, nowMs));
  if (!first) return new Map();
  return new Map([...first].filter(([name]) => rest.every((other) => other.has(name))));
}
