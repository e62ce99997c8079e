/**
 * A bucketed push-down's series (windowTotals): at each evaluation time, the total of the group's
 * buckets whose ends fall in the time's window, and a point only where the window holds one of
 * them. Checked against that definition, evaluated time by time, for groups dense and sparse (an
 * alert's series with a few buckets a day, which the sliding total skips over to its next bucket).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { windowTotals, type GroupBuckets } from "../../../src/exec/metric-pushdown";
import type { MetricGrid } from "../../../src/plan/metric-pushdown";
import type { Series } from "../../../src/engine/types";

const S = 1_000_000_000n;

/** The definition: every evaluation time's window, its buckets found one by one. */
function byDefinition(
  groups: readonly GroupBuckets[],
  grid: MetricGrid,
  plan: { offset: bigint; width: bigint; bucketsPerWindow: number; perSeconds: number },
  rankEnds: readonly bigint[],
): Series[] {
  const range = plan.width * BigInt(plan.bucketsPerWindow);
  const out: Series[] = [];
  for (const g of groups) {
    const points: Series["points"] = [];
    for (let t = grid.start; t <= grid.end; t += grid.step) {
      const end = t - plan.offset;
      let sum = 0;
      let held = false;
      g.ranks.forEach((rank, i) => {
        const e = rankEnds[rank]!;
        if (e <= end && e > end - range) {
          held = true;
          sum += g.values[i]!;
        }
      });
      if (held) points.push({ t, v: plan.perSeconds > 0 ? sum / plan.perSeconds : sum });
    }
    if (points.length > 0) out.push({ labels: g.labels, points });
  }
  return out;
}

describe("windowTotals", () => {
  it("totals each time's window of a group's buckets, dense or a few a day (property)", () => {
    const scenario = fc
      .record({
        buckets: fc.integer({ min: 1, max: 60 }),
        bucketsPerWindow: fc.integer({ min: 1, max: 6 }),
        stepBuckets: fc.integer({ min: 1, max: 3 }),
        offsetBuckets: fc.integer({ min: 0, max: 2 }),
        perSeconds: fc.constantFrom(0, 300),
      })
      .chain((s) =>
        fc.record({
          s: fc.constant(s),
          // Each group's buckets as the rows came: ranks in any order, a rank repeated (rows of one
          // bucket added up), groups from a bucket or two to every bucket.
          groups: fc.array(
            fc.oneof(
              fc.array(fc.tuple(fc.integer({ min: 0, max: s.buckets - 1 }), fc.integer({ min: 0, max: 9 })), {
                maxLength: 3,
              }),
              fc.array(fc.tuple(fc.integer({ min: 0, max: s.buckets - 1 }), fc.integer({ min: 0, max: 9 })), {
                maxLength: 80,
              }),
            ),
            { minLength: 1, maxLength: 5 },
          ),
          // Bucket ends with gaps between them (buckets no row fell in are not in the answer).
          gaps: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: s.buckets, maxLength: s.buckets }),
        }),
      );
    fc.assert(
      fc.property(scenario, ({ s, groups, gaps }) => {
        const width = 60n * S;
        const rankEnds: bigint[] = [];
        let end = 1_000n * width - 1n;
        for (const gap of gaps) rankEnds.push((end += BigInt(gap) * width));
        const grid: MetricGrid = {
          start: rankEnds[0]! - 2n * width + 1n,
          end: rankEnds[rankEnds.length - 1]! + 6n * width + 1n,
          step: BigInt(s.stepBuckets) * width,
          instant: false,
        };
        const plan = {
          offset: BigInt(s.offsetBuckets) * width,
          width,
          bucketsPerWindow: s.bucketsPerWindow,
          perSeconds: s.perSeconds,
        };
        const buckets: GroupBuckets[] = groups.map((rows, i) => ({
          labels: { g: String(i) },
          ranks: rows.map(([rank]) => rank),
          values: rows.map(([, v]) => v),
        }));
        expect(windowTotals(buckets, grid, plan, rankEnds)).toEqual(byDefinition(buckets, grid, plan, rankEnds));
      }),
      { numRuns: 400, seed: 4926 },
    );
  });
});
