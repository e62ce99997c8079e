/**
 * A window's variance merged from its buckets' moments is Loki's Welford fold over the window's
 * values, but for float rounding; equal values give exactly 0.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Moments } from "../../../src/exec/moments";

/** Loki's stdvarOverTime: Welford's update over the samples in order. */
function welford(values: readonly number[]): number {
  let aux = 0;
  let count = 0;
  let mean = 0;
  for (const v of values) {
    count++;
    const delta = v - mean;
    mean += delta / count;
    aux += delta * (v - mean);
  }
  return aux / count;
}

describe("Moments", () => {
  it("merges buckets into the variance of their values", () => {
    const value = fc.double({ min: -1e9, max: 1e9, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { maxLength: 20 }), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        (buckets, cut) => {
          const moments = buckets.map((b) => Moments.of(Float64Array.from(b)));
          const lo = cut % buckets.length;
          const values = buckets.slice(lo).flat();
          const merged = Moments.merged(moments, lo, buckets.length);
          expect(merged.n).toBe(values.length);
          if (values.length === 0) {
            expect(merged.variance()).toBeNaN();
            return;
          }
          const expected = welford(values);
          const spread = Math.max(...values.map(Math.abs));
          expect(Math.abs(merged.variance() - expected)).toBeLessThanOrEqual(
            1e-9 * Math.max(expected, 1e-12 * spread * spread, 1e-300),
          );
        },
      ),
      { numRuns: 500, seed: 26 },
    );
  });

  it("gives exactly 0 for equal values, however they fall into buckets", () => {
    const ones = [Float64Array.of(0.1, 0.1), Float64Array.of(), Float64Array.of(0.1), Float64Array.of(0.1, 0.1, 0.1)];
    const merged = Moments.merged(
      ones.map((b) => Moments.of(b)),
      0,
      ones.length,
    );
    expect(merged.variance()).toBe(0);
    expect(merged.mean).toBe(0.1);
  });

  it("reads one bucket as Loki's fold does", () => {
    const values = [3, -41.5, 7, 12.25, 987654321.000001];
    expect(Moments.of(Float64Array.from(values)).variance()).toBe(welford(values));
  });
});
