/**
 * Widening of metadata windows (labels, label values, series) to bucket boundaries, so dashboard
 * refreshes a few seconds apart ask the origin the same question and share one cache entry. The
 * bucket grows with the span so the widening stays small relative to what was asked.
 */
import { floorMod } from "../core/go/intdiv";
import type { TimeWindow } from "../core/time-window";

const MINUTE_NS = 60_000_000_000n;
const HOUR_NS = 60n * MINUTE_NS;

/** Bucket size for a window of `spanNs`: ≤ 6 h → 5 min, ≤ 48 h → 1 h, longer → 6 h. */
export function bucketSizeNs(spanNs: bigint): bigint {
  if (spanNs <= 6n * HOUR_NS) return 5n * MINUTE_NS;
  if (spanNs <= 48n * HOUR_NS) return HOUR_NS;
  return 6n * HOUR_NS;
}

/**
 * [start, end) widened outward to epoch-aligned bucket boundaries: start rounds down, end rounds
 * up; a bound already on a boundary stays put. The bucket size is chosen from the requested span.
 */
export function bucketWindow(window: TimeWindow): TimeWindow {
  if (window.end <= window.start) return window;
  const size = bucketSizeNs(window.end - window.start);
  return { start: floorTo(window.start, size), end: ceilTo(window.end, size) };
}

function floorTo(t: bigint, size: bigint): bigint {
  // Floored, so pre-1970 instants still round toward −∞.
  return t - floorMod(t, size);
}

function ceilTo(t: bigint, size: bigint): bigint {
  const f = floorTo(t, size);
  return f === t ? t : f + size;
}
