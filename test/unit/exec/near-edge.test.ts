/** The window plan of log queries the origin cuts to `limit`: edge first, then sized by density. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nearEdgeFirst } from "../../../src/exec/logs";
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
