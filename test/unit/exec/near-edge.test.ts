/**
 * The window plan of log queries the origin cuts to `limit`: edge first, then sized by density, or
 * by a count of the rest.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bucketCounts, countStep, edgeAndRest, nearEdgeFirst, rowsWithin, spanHolding } from "../../../src/exec/logs";
import type { TimeWindow } from "../../../src/core/time-window";

const H = 3_600_000_000_000n;

/** Runs the plan, feeding each window the entry count `answer` gives it; returns the windows. */
function plan(range: TimeWindow, backward: boolean, limit: number, answer: (w: TimeWindow) => number): TimeWindow[] {
  const out: TimeWindow[] = [];
  let total = 0;
  for (const step of nearEdgeFirst(range, H, backward, limit)) {
    out.push(step.window);
    const n = Math.min(limit, answer(step.window));
    total += n;
    if (total >= limit) break;
    step.observe(n);
  }
  return out;
}

describe("nearEdgeFirst", () => {
  const range = { start: 0n, end: 72n * H };

  it("asks once for a range of up to two intervals", () => {
    expect(plan({ start: 0n, end: 2n * H }, true, 100, () => 0)).toEqual([{ start: 0n, end: 2n * H }]);
  });

  it("stops after the edge interval when it holds the limit", () => {
    expect(plan(range, true, 100, () => 500)).toEqual([{ start: 71n * H, end: 72n * H }]);
  });

  it("with nothing at the edge, asks for all the rest at once", () => {
    expect(plan(range, true, 100, () => 0)).toEqual([
      { start: 71n * H, end: 72n * H },
      { start: 0n, end: 71n * H },
    ]);
  });

  it("sizes the second window at twice the span the missing entries need at the edge's density", () => {
    // 100 per hour at the edge, 900 missing: 9 h needed, 18 h asked.
    const perHour = (w: TimeWindow) => Number(((w.end - w.start) * 100n) / H);
    expect(plan(range, true, 1000, perHour)).toEqual([
      { start: 71n * H, end: 72n * H },
      { start: 53n * H, end: 71n * H },
    ]);
    expect(plan(range, false, 1000, perHour)).toEqual([
      { start: 0n, end: H },
      { start: H, end: 19n * H },
    ]);
  });

  it("asks for the rest at once when the sized window would cover most of it", () => {
    expect(plan(range, true, 1000, (w) => (w.end === 72n * H ? 10 : 0))).toEqual([
      { start: 71n * H, end: 72n * H },
      { start: 0n, end: 71n * H },
    ]);
  });

  it("covers the range exactly, without overlap, in direction order (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 200n * H }),
        fc.bigInt({ min: 1n, max: 200n * H }),
        fc.boolean(),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 6000 }), { minLength: 3, maxLength: 3 }),
        (start, length, backward, limit, counts) => {
          const r = { start, end: start + length };
          const windows = [...nearEdgeFirst(r, H, backward, limit)].map(
            (s, i) => (s.observe(Math.min(counts[i]!, limit - 1)), s.window),
          );
          const ordered = backward ? [...windows].reverse() : windows;
          expect(ordered[0]!.start).toBe(r.start);
          expect(ordered[ordered.length - 1]!.end).toBe(r.end);
          for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.start).toBe(ordered[i - 1]!.end);
          for (const w of windows) expect(w.end > w.start).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 5 },
    );
  });
});

describe("the span a count of the rest says holds the missing entries", () => {
  const M = 60_000_000_000n;
  const step = 5n * M;
  const rest = { start: 0n, end: 5n * H };
  // 10 rows in every 5-minute bucket of the rest.
  const even = new Map(Array.from({ length: 60 }, (_, k) => [BigInt(k) * step, 10] as const));

  it("backward: from the rest's end, the buckets that reach the need", () => {
    expect(spanHolding(even, step, rest, 25, true)).toEqual({ start: rest.end - 3n * step, end: rest.end });
    expect(spanHolding(even, step, rest, 30, true)).toEqual({ start: rest.end - 3n * step, end: rest.end });
  });

  it("forward: from the rest's start", () => {
    expect(spanHolding(even, step, rest, 25, false)).toEqual({ start: 0n, end: 3n * step });
  });

  it("the whole rest when the counts do not reach the need, or only its first bucket would not", () => {
    expect(spanHolding(even, step, rest, 601, true)).toBe(rest);
    expect(spanHolding(new Map(), step, rest, 1, true)).toBe(rest);
    expect(spanHolding(even, step, rest, 600, true)).toBe(rest);
  });

  it("a bucket straddling the rest's edge is not counted (its rows may lie in the edge window)", () => {
    const shifted = { start: 0n, end: 5n * H - 2n * M };
    // The last bucket (ending past the rest) holds 1000 rows: the span still covers three whole buckets.
    const counts = new Map([...even, [59n * step, 1000]]);
    expect(spanHolding(counts, step, shifted, 25, true)).toEqual({ start: 56n * step, end: shifted.end });
  });

  it("counts a window's rows from the buckets wholly inside it", () => {
    expect(rowsWithin(even, step, { start: 0n, end: H })).toBe(120);
    expect(rowsWithin(even, step, { start: 2n * M, end: H + 2n * M })).toBe(110);
  });

  it("sums the series of a hits answer by bucket start", () => {
    const counts = bucketCounts([
      { timestamps: ["2026-02-01T00:00:00Z", "2026-02-01T00:05:00Z"], values: [3, 0] },
      { timestamps: ["2026-02-01T00:00:00Z"], values: [4] },
    ]);
    expect([...counts]).toEqual([[1769904000n * 1_000_000_000n, 7]]);
  });

  it("buckets a twelfth of the interval, in whole seconds, or a multiple of it past 1000 buckets", () => {
    expect(countStep(rest, H)).toBe(step);
    // 7 days: 605 s would do; 15 minutes still tile the hour.
    expect(countStep({ start: 0n, end: 7n * 24n * H }, H)).toBe(15n * M);
    expect(countStep({ start: 0n, end: 30n * 24n * H }, H)).toBe(45n * M);
    expect(countStep(rest, 1_000_000_000n)).toBe(18n * 1_000_000_000n);
  });

  it("splits the edge interval off the range's edge", () => {
    const range = { start: 0n, end: 6n * H };
    expect(edgeAndRest(range, H, true)).toEqual({
      edge: { start: 5n * H, end: 6n * H },
      rest: { start: 0n, end: 5n * H },
    });
    expect(edgeAndRest(range, H, false)).toEqual({ edge: { start: 0n, end: H }, rest: { start: H, end: 6n * H } });
  });
});
