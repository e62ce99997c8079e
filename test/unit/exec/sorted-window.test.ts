/**
 * A sliding span of runs holds, at every step, exactly what sorting the span's values afresh
 * gives (the same values in the same order, −0 before 0), whether the step slid or sorted whole.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SortedWindow } from "../../../src/exec/sorted-window";
import { quantileOfSorted } from "../../../src/engine/metric/range/functions";

/** A bucket's values as they came (the window sorts them when it needs to). */
const run = (values: number[]) => Float64Array.from(values);
const freshly = (runs: Float64Array[], lo: number, hi: number) =>
  Float64Array.from(runs.slice(lo, hi).flatMap((r) => [...r])).sort();
/** Compared value by value with Object.is, so that −0 and 0 (and NaN) count as what they are. */
const same = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/** Values with the edge cases of a numeric sort: −0 and 0, infinities, extremes. */
const anyValue = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(-0, 0, 0.1, -1e300, Infinity, -Infinity),
  fc.double({ noNaN: true }),
);
/** Generated runs, the first with a NaN added when asked. */
const runsOf = (values: number[][], withNaN: boolean) => {
  const runs = values.map(run);
  if (withNaN && runs.length > 0) runs[0] = run([...runs[0]!, NaN]);
  return runs;
};
/** The spans a window takes as each move pushes its start and end forward (neither moves back). */
function* spansOf(count: number, moves: readonly (readonly [number, number])[]): Generator<[number, number]> {
  let lo = 0;
  let hi = 0;
  for (const [dlo, width] of moves) {
    lo = Math.min(count, lo + dlo);
    hi = Math.min(count, Math.max(hi, lo + width));
    yield [lo, hi];
  }
}

describe("SortedWindow", () => {
  it("slides a run in and out at each step", () => {
    const runs = [[3, 1], [2], [5, 4, 4], [0], [9, 1]].map(run);
    const w = new SortedWindow(runs);
    expect([...w.span(0, 3)]).toEqual([1, 2, 3, 4, 4, 5]);
    expect([...w.span(1, 4)]).toEqual([0, 2, 4, 4, 5]);
    expect([...w.span(2, 5)]).toEqual([0, 1, 4, 4, 5, 9]);
    expect([...w.span(5, 5)]).toEqual([]);
  });

  it("refuses to slide back", () => {
    const w = new SortedWindow([run([1]), run([2])]);
    w.span(1, 2);
    expect(() => w.span(0, 2)).toThrow(RangeError);
  });

  it("keeps −0 before 0 and tells them apart when a run leaves", () => {
    const runs = [run([0]), run([-0, 1]), run([0, -0])];
    const w = new SortedWindow(runs);
    expect(same(w.span(0, 2), Float64Array.of(-0, 0, 1))).toBe(true);
    expect(same(w.span(1, 3), Float64Array.of(-0, -0, 0, 1))).toBe(true);
    expect(same(w.span(2, 3), Float64Array.of(-0, 0))).toBe(true);
  });

  it("equals a fresh sort of each span, whatever the runs and the steps", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(anyValue, { maxLength: 6 }), { maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(4), fc.nat(12)), { maxLength: 30 }),
        fc.boolean(),
        (values, moves, withNaN) => {
          const runs = runsOf(values, withNaN);
          const w = new SortedWindow(runs);
          for (const [lo, hi] of spansOf(runs.length, moves)) {
            expect(same(w.span(lo, hi), freshly(runs, lo, hi))).toBe(true);
          }
        },
      ),
      { numRuns: 500, seed: 3426 },
    );
  });

  it("reads a span's quantile as quantileOfSorted reads its values sorted, whether it slid, was sorted or selected", () => {
    const runs = [[9, 1, 5], [2, 2], [7], [3, 8, 6, 4], [0]].map(run);
    const w = new SortedWindow(runs);
    // Alone (selected), then sliding (sorted), then alone again.
    expect(w.quantile(0.5, 0, 1)).toBe(5);
    expect(w.quantile(0.5, 0, 2)).toBe(2);
    expect(w.quantile(0.25, 1, 3)).toBe(2);
    expect(w.quantile(0.9, 3, 4)).toBeCloseTo(7.4, 12);
    expect(w.quantile(0.5, 4, 5)).toBe(0);
    expect(w.quantile(2, 4, 5)).toBe(Infinity);
    expect(w.quantile(0.5, 5, 5)).toBeNaN();
  });

  it("equals quantileOfSorted over a fresh sort of each span, whatever the values and steps", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(anyValue, { maxLength: 40 }), { maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(4), fc.nat(12)), { maxLength: 30 }),
        fc.constantFrom(0, 0.01, 0.25, 0.5, 0.9, 0.99, 1, -1, 2),
        fc.boolean(),
        (values, moves, phi, withNaN) => {
          const runs = runsOf(values, withNaN);
          const fresh = runs.map((r) => Float64Array.from(r));
          const w = new SortedWindow(runs);
          for (const [lo, hi] of spansOf(runs.length, moves)) {
            expect(Object.is(w.quantile(phi, lo, hi), quantileOfSorted(phi, freshly(fresh, lo, hi)))).toBe(true);
          }
        },
      ),
      { numRuns: 500, seed: 2665 },
    );
  });
});
