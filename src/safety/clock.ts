/**
 * How far ahead of this pass's clock a source-of-truth timestamp may lie and still count: clocks of
 * a host and its containers drift by seconds, a timestamp hours or years ahead is a wrong clock or
 * a forged record, and proves nothing.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 5 * 60_000;

/** True when `ms` lies further in the future than the tolerance allows. */
export function isBeyondClock(ms: number, nowMs: number): boolean {
  return ms - nowMs > CLOCK_SKEW_TOLERANCE_MS;
}
