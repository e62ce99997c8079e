/**
 * Splits a time range into aligned sub-windows and runs them against the origin with bounded
 * concurrency, consuming results strictly in order so callers can stop as soon as they have enough.
 */
import type { TimeWindow } from "../origin/client";
import { floorDiv } from "../core/go/intdiv";

/** At most this many windows per range: a longer range gets wider windows (multiples of the interval). */
const MAX_WINDOWS = 4096n;

/** Windows of `interval` aligned to epoch multiples, covering [start, end), in the given order. */
export function splitWindows(range: TimeWindow, interval: bigint, newestFirst: boolean): TimeWindow[] {
  const out: TimeWindow[] = [];
  if (interval <= 0n || range.end <= range.start) {
    return range.end > range.start ? [range] : [];
  }
  const needed = (range.end - range.start) / (interval * MAX_WINDOWS);
  if (needed > 0n) interval *= needed + 1n;
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
