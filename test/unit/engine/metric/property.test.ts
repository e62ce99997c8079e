import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateMetric } from "../../../../src/engine/metric";
import { quantile } from "../../../../src/engine/metric/range/functions";
import { range } from "./support/ast";
import { labelSource, sample } from "./support/memory-source";

/** Brute force straight from the definition: points at start + k·step, window (t − range, t]. */
function bruteForce(
  times: number[],
  values: number[],
  start: number,
  end: number,
  step: number,
  win: number,
  fold: (vs: number[]) => number,
) {
  const out: Array<[number, number]> = [];
  for (let t = start; t <= end; t += step) {
    const vs = values.filter((_, i) => times[i]! > t - win && times[i]! <= t);
    if (vs.length > 0) out.push([t, fold(vs)]);
  }
  return out;
}

const scenario = fc.record({
  times: fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 40 }),
  start: fc.integer({ min: 0, max: 200 }).map((s) => s * 10),
  span: fc.integer({ min: 0, max: 30 }),
  step: fc.integer({ min: 1, max: 90 }),
  win: fc.integer({ min: 1, max: 200 }),
});

describe("sliding windows (property)", () => {
  it("count and sum over time equal the brute-force definition for any range/step relation", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ times, start, span, step, win }) => {
        // Work on a step-aligned grid (evaluateMetric aligns like Loki's frontend does).
        const s0 = Math.floor(start / step) * step;
        const end = s0 + span * step;
        const values = times.map((t, i) => (t % 7) + i);
        const samples = times.map((t, i) => sample(t, values[i]!, { app: "a" }));
        const q = {
          start: BigInt(s0) * 1_000_000_000n,
          end: BigInt(end) * 1_000_000_000n,
          step: BigInt(step) * 1_000_000_000n,
          instant: false,
        };
        const toPairs = (r: Awaited<ReturnType<typeof evaluateMetric>>) =>
          r.type === "matrix" ? (r.series[0]?.points ?? []).map((p) => [Number(p.t / 1_000_000_000n), p.v]) : [];
        const count = await evaluateMetric(range("count_over_time", 'app="a"', `${win}s`), q, labelSource(samples));
        expect(toPairs(count)).toEqual(bruteForce(times, values, s0, end, step, win, (vs) => vs.length));
        const sum = await evaluateMetric(range("sum_over_time", 'app="a"', `${win}s`), q, labelSource(samples));
        expect(toPairs(sum)).toEqual(
          bruteForce(times, values, s0, end, step, win, (vs) => vs.reduce((a, b) => a + b, 0)),
        );
        const q90 = await evaluateMetric(
          range("quantile_over_time", 'app="a"', `${win}s`, { param: 0.9 }),
          q,
          labelSource(samples),
        );
        expect(toPairs(q90)).toEqual(bruteForce(times, values, s0, end, step, win, (vs) => quantile(0.9, [...vs])));
      }),
      { numRuns: 200 },
    );
  });
  it("quantile lies between min and max and hits them at φ = 0 and 1", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (vs, phi) => {
          const q = quantile(phi, [...vs]);
          expect(q).toBeGreaterThanOrEqual(Math.min(...vs) - 1e-9);
          expect(q).toBeLessThanOrEqual(Math.max(...vs) + 1e-9);
          // `===`, not Object.is: the sign of a zero is not an order question (Go's sort keeps 0 and
          // -0 in input order, JS's Math.min prefers -0).
          expect(quantile(0, [...vs]) === Math.min(...vs)).toBe(true);
          expect(quantile(1, [...vs]) === Math.max(...vs)).toBe(true);
        },
      ),
    );
  });
});
