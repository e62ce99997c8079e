/**
 * The sliding quantile and counter-rate windows give, at every step, exactly what the reference
 * functions give over the window's points (bit for bit: NaN, ties, −0, resets, negative values).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { counterRate, quantile } from "../../../../src/engine/metric/range/functions";
import { CounterWindows, QuantileWindows } from "../../../../src/engine/metric/range/sliding";

const value = fc.oneof(
  fc.integer({ min: -5, max: 20 }),
  fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 0.1, 1e300),
  fc.double({ noNaN: false }),
);

/** Windows [lo, hi) moving forward only, as pointsOverTime moves them. */
const windows = fc.array(fc.tuple(fc.nat(5), fc.nat(8)), { maxLength: 30 }).map((moves) => {
  let lo = 0;
  let hi = 0;
  return moves.map(([leave, enter]) => {
    hi += enter;
    lo = Math.min(hi, lo + leave);
    return [lo, hi] as const;
  });
});

function same(a: number, b: number): boolean {
  return Object.is(a, b);
}

describe("sliding windows equal the reference functions", () => {
  it("quantile_over_time", () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 60 }),
        windows,
        fc.constantFrom(0, 0.25, 0.5, 0.9, 0.99, 1, -0.5, 1.5, NaN),
        (vs, moves, phi) => {
          const w = new QuantileWindows(phi, vs);
          let lo = 0;
          let hi = 0;
          for (const [l, h] of moves) {
            const nh = Math.min(h, vs.length);
            const nl = Math.min(l, nh);
            while (hi < nh) w.enter(hi++);
            while (lo < nl) w.leave(lo++);
            if (hi === lo) continue;
            const expected = quantile(phi, vs.slice(lo, hi));
            const got = w.value(lo, hi);
            expect(same(got, expected), `φ=${phi} [${lo},${hi}) of ${vs}: ${got} vs ${expected}`).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("rate_counter", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 5_000_000_000 }), value), { minLength: 1, maxLength: 60 }),
        windows,
        (points, moves) => {
          let t = 1_700_000_000_000_000_000n;
          const ts = points.map(([gap]) => (t += BigInt(gap)));
          const vs = points.map(([, v]) => v);
          const range = 300_000_000_000n;
          const w = new CounterWindows(ts, vs, range);
          let lo = 0;
          let hi = 0;
          for (const [l, h] of moves) {
            hi = Math.max(hi, Math.min(h, vs.length));
            lo = Math.max(lo, Math.min(l, hi));
            if (hi === lo) continue;
            const expected = counterRate(ts.slice(lo, hi), vs.slice(lo, hi), range);
            const got = w.value(lo, hi);
            expect(same(got, expected), `[${lo},${hi}) of ${vs}: ${got} vs ${expected}`).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
