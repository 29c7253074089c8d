/** Durations as the config writes them (`30m`, `1h30m`, `7d`): pure, so judges may use them too. */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+)(ms|s|m|h|d|w)/g;
const WHOLE = /^(?:\d+(?:ms|s|m|h|d|w))+$/;

/** Parses `0s`, `90s`, `30m`, `1h`, `7d`, `1h30m`; returns null when the text is no duration. */
export function parseDuration(text: string): number | null {
  if (!WHOLE.test(text)) return null;
  let total = 0;
  for (const match of text.matchAll(PART)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  }
  return total;
}

/** The inverse, for messages: the largest whole unit that fits. */
export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

export function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === null) throw new Error(`not a duration: ${text}`);
  return ms;
}
