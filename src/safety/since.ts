/**
 * How far a change's timestamp may trail the clock the pass read when it began collecting
 * evidence. Linux stamps ctime from its coarse clock, which lags the fine clock by up to one tick
 * (10 ms at HZ=100, the slowest it is built with); a tick handled late on a busy VM lags further
 * (6 ms was seen at HZ=250 here). Twice the slowest tick: the pass starts reading evidence no
 * sooner than this after it read the clock, so a change made after that still stamps later than
 * the moment read.
 */
export const CLOCK_MARGIN_MS = 20;

/** Whole seconds in ms: what a file system that keeps no fraction of a second (ext3, NFSv2) stamps. */
const SECOND_MS = 1000;

/**
 * Whether a change stamped `stampMs` may have been made at or after `sinceMs` (the moment the pass
 * read its clock, at least CLOCK_MARGIN_MS before it began collecting evidence). A stamp with no
 * fraction of a second may come from a file system that cuts to the second: its change may have
 * been made anywhere in that second, so the whole second counts.
 */
export function changedSince(stampMs: number, sinceMs: number): boolean {
  if (stampMs % SECOND_MS === 0) return stampMs + SECOND_MS > sinceMs;
  return stampMs >= sinceMs;
}
