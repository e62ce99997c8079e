/**
 * Splits a time range into aligned sub-windows and runs them against the origin with bounded
 * concurrency, consuming results strictly in order so callers can stop as soon as they have enough.
 */
import type { TimeWindow } from "../core/time-window";
import { ceilDiv, floorDiv } from "../core/go/intdiv";

/** At most this many windows per range: a longer range gets wider windows (multiples of the interval). */
const MAX_WINDOWS = 4096n;

/**
 * Windows of `interval` aligned to epoch multiples, covering [start, end), in the given order. At
 * most `maxWindows` of them (and MAX_WINDOWS): the interval is then widened to a multiple of
 * itself, so windows stay aligned, and the rows asked for are the same, in fewer requests. Callers
 * pass the request's share of origin requests (SubrequestBudget.windowShare).
 */
export function splitWindows(
  range: TimeWindow,
  interval: bigint,
  newestFirst: boolean,
  maxWindows: bigint = MAX_WINDOWS,
): TimeWindow[] {
  const out: TimeWindow[] = [];
  if (interval <= 0n || range.end <= range.start) {
    return range.end > range.start ? [range] : [];
  }
  interval = widenedInterval(range, interval, maxWindows < MAX_WINDOWS ? maxWindows : MAX_WINDOWS);
  if (interval <= 0n) return [range];
  let from = range.start;
  while (from < range.end) {
    const boundary = (floorDiv(from, interval) + 1n) * interval;
    const to = boundary < range.end ? boundary : range.end;
    out.push({ start: from, end: to });
    from = to;
  }
  return newestFirst ? out.reverse() : out;
}

/**
 * `interval`, or a multiple of it that covers `range` in at most `maxWindows` aligned windows (0n:
 * one window, the range itself). An aligned split can have one window more than the span divided by
 * the width (a partial window at each end), which the count allows for.
 */
export function widenedInterval(range: TimeWindow, interval: bigint, maxWindows: bigint): bigint {
  if (interval <= 0n || range.end <= range.start) return interval;
  // One window: the range itself, unaligned (no aligned width is sure to hold it whole).
  if (maxWindows <= 1n) return 0n;
  const span = range.end - range.start;
  // The narrowest width that could do, if the range falls well on its boundaries.
  const k = ceilDiv(span, interval * maxWindows);
  if (alignedCount(range, interval * k) <= maxWindows) return interval * k;
  // Windows of at least span / (maxWindows − 1) number at most maxWindows, however they fall.
  return interval * ceilDiv(span, interval * (maxWindows - 1n));
}

/** How many aligned windows of `width` cover `range`. */
function alignedCount(range: TimeWindow, width: bigint): bigint {
  return floorDiv(range.end - 1n, width) - floorDiv(range.start, width) + 1n;
}

/**
 * Runs `task` for each item (a window, or a group of windows) with at most `maxConcurrency` in
 * flight. Concurrency ramps up from 1 (1, 2, 4, ...) because the first item often answers the whole
 * query (newest entries first), and speculative requests cost the origin real work. `consume` sees
 * results in item order and returns false to stop; in-flight tasks are then aborted through the
 * signal they were given.
 */
export async function runWindows<W, T>(
  items: readonly W[],
  maxConcurrency: number,
  parentSignal: AbortSignal | undefined,
  task: (item: W, signal: AbortSignal) => Promise<T>,
  consume: (result: T, item: W) => boolean,
): Promise<void> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parentSignal?.reason);
  parentSignal?.addEventListener("abort", onParentAbort);
  const pending: Promise<T>[] = [];
  let next = 0;
  let allowance = 1;
  try {
    for (let i = 0; i < items.length; i++) {
      while (next < items.length && next - i < allowance) {
        const p = task(items[next]!, controller.signal);
        // Failures surface when awaited in order; keep later rejections from going unhandled.
        p.catch(() => {});
        pending.push(p);
        next++;
      }
      const result = await pending[i]!;
      if (!consume(result, items[i]!)) return;
      allowance = Math.min(maxConcurrency, allowance * 2);
    }
  } finally {
    controller.abort();
    parentSignal?.removeEventListener("abort", onParentAbort);
  }
}
