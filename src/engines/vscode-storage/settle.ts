/**
 * An extension writes its history a moment after a change (Cline debounces 500 ms, Roo 2 s and
 * 5 s, VS Code flushes its state database 100 ms after a write). A history read while that is
 * under way may miss a task that exists, so it proves nothing on its own: it must read the same
 * twice, the second read at least this long after the newest write of any source.
 */
export const HISTORY_SETTLE_MS = 6_000;

/** A source-of-truth timestamp further in the future than this proves nothing (rule 17). */
const CLOCK_SKEW_MS = 5 * 60_000;

export type Settlement =
  | { state: 'settled' }
  | { state: 'changed'; detail: string }
  | { state: 'clock-skew'; detail: string };

/** What a history read answers: what the rule uses (`digest`) and when its sources were last written. */
export interface HistoryRead {
  digest: string;
  newest: { mtimeMs: number; path: string } | null;
}

/**
 * Reads a history, and again once its newest write is `HISTORY_SETTLE_MS` old when it is younger
 * than that. Settled when the two reads agree (or the first was already old enough); a source
 * written in the future beyond the clock-skew margin settles nothing.
 */
export async function settleHistory<T extends HistoryRead>(
  read: () => Promise<T>,
  options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<{ history: T; settlement: Settlement }> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const first = await read();
  const skewed = skew(first, now());
  if (skewed) return { history: first, settlement: skewed };
  const age = first.newest === null ? Number.POSITIVE_INFINITY : now() - first.newest.mtimeMs;
  if (age >= HISTORY_SETTLE_MS) return { history: first, settlement: { state: 'settled' } };
  // A source a little in the future (within the skew margin) is waited for one whole period, no more.
  const wait = Math.min(HISTORY_SETTLE_MS - age, HISTORY_SETTLE_MS);
  await sleep(wait);
  const second = await read();
  const skewedAgain = skew(second, now());
  if (skewedAgain) return { history: second, settlement: skewedAgain };
  if (second.digest !== first.digest) {
    return {
      history: second,
      settlement: {
        state: 'changed',
        detail: `the history changed between two reads ${Math.round(wait / 100) / 10}s apart (${second.newest?.path ?? 'a source'} was being written)`,
      },
    };
  }
  const stillYoung = second.newest !== null && now() - second.newest.mtimeMs < HISTORY_SETTLE_MS;
  if (stillYoung && second.newest?.mtimeMs !== first.newest?.mtimeMs) {
    return {
      history: second,
      settlement: {
        state: 'changed',
        detail: `${second.newest?.path} was written again while the history was read twice`,
      },
    };
  }
  return { history: second, settlement: { state: 'settled' } };
}

function skew(read: HistoryRead, nowMs: number): Settlement | null {
  if (read.newest === null || read.newest.mtimeMs - nowMs <= CLOCK_SKEW_MS) return null;
  return {
    state: 'clock-skew',
    detail: `${read.newest.path} was written at ${new Date(read.newest.mtimeMs).toISOString()}, more than five minutes in the future, so the history's age proves nothing`,
  };
}
