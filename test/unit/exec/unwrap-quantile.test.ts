/**
 * A pushed quantile from its buckets' value lists: each window's answer is the quantile of every
 * value of the buckets it spans (whatever their order), and a bucket whose list is not whole, or
 * any row the guard counted, declines. Equality with local evaluation against the real origin is
 * proved in test/worker/unwrap-pushdown.test.ts; here the rows are given.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quantile } from "../../../src/engine/metric/range/functions";
import type { CachedOrigin } from "../../../src/cache/cached-origin";
import { type StatsOrigin, timeBucketCache } from "../../../src/cache/extents";
import type { VLRow } from "../../../src/origin/rows";
import type { StatsTable } from "../../../src/origin/stats-table";
import { readStatsAnswer } from "../../../src/origin/stats-answer";
import { runUnwrapPlan, type UnwrapOutcome } from "../../../src/exec/unwrap-pushdown";
import type { UnwrapBucketPlan } from "../../../src/plan/unwrap-pushdown";
import type { Series } from "../../../src/engine/types";

const S = 1_000_000_000n;
const MINUTE = 60n * S;
const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString().replace(".000Z", ".000000001Z");

/** Buckets of one minute starting 1 ns past each minute, windows of three buckets, steps of a minute. */
const plan: UnwrapBucketPlan = {
  logsql: "unused",
  window: { start: 1n, end: 10n * MINUTE + 1n },
  width: MINUTE,
  shift: 1n,
  bucketsPerWindow: 3,
  offset: 0n,
  groupBy: ["pod"],
  fn: "quantile",
  phi: 0.5,
};
const grid = { start: 3n * MINUTE, end: 6n * MINUTE, step: MINUTE, instant: false };

function clientWith(rows: VLRow[]): CachedOrigin {
  const origin = {
    // The rows as the origin writes them, read by the Worker's own reader.
    readStatsRows: async (_logsql: string, _window: unknown, table: StatsTable, beforeRow?: () => void) =>
      readStatsAnswer(rows.map((row) => `${JSON.stringify(row)}\n`).join(""), table, beforeRow),
  } as unknown as StatsOrigin;
  return { timeBuckets: timeBucketCache(origin, undefined) } as unknown as CachedOrigin;
}

/** The row of the bucket starting at minute `m` (so ending at minute m + 1). */
function row(m: number, pod: string, values: string[], extra: Partial<VLRow> = {}): VLRow {
  return {
    _time: iso(BigInt(m) * MINUTE),
    pod,
    __v: JSON.stringify(values),
    __n: String(values.length),
    __bad: "0",
    ...extra,
  };
}

const stats = () => ({ rowsScanned: 0, bytesScanned: 0, subqueries: 0 });

/** The series of an answer that must not have declined. */
function seriesOf(out: UnwrapOutcome): Series[] {
  if (!Array.isArray(out)) throw new Error(`declined: ${JSON.stringify(out)}`);
  return out;
}

describe("runUnwrapPlan, quantile", () => {
  it("takes each window's quantile over the values of all its buckets", async () => {
    const rows = [
      row(2, "a", ["10", "1"]),
      row(0, "a", ["4"]),
      row(1, "a", ["7.5", "2"]),
      row(4, "a", ["-3"]),
      row(2, "b", ["100"]),
    ];
    const out = await runUnwrapPlan(clientWith(rows), plan, grid, stats());
    const byPod = new Map(seriesOf(out).map((s) => [s.labels["pod"], s.points]));
    // t = 3 min: buckets ending at minutes 1..3 → {4, 7.5, 2, 10, 1}: median 4.
    // t = 4 min: minutes 2..4 → {7.5, 2, 10, 1}: median (2 + 7.5) / 2.
    // t = 5 min: minutes 3..5 → {10, 1, -3}: median 1.
    // t = 6 min: minutes 4..6 → {-3}.
    expect(byPod.get("a")).toEqual([
      { t: 3n * MINUTE, v: 4 },
      { t: 4n * MINUTE, v: 4.75 },
      { t: 5n * MINUTE, v: 1 },
      { t: 6n * MINUTE, v: -3 },
    ]);
    expect(byPod.get("b")).toEqual([
      { t: 3n * MINUTE, v: 100 },
      { t: 4n * MINUTE, v: 100 },
      { t: 5n * MINUTE, v: 100 },
    ]);
  });

  it("interpolates between ranks and reads φ outside [0, 1] as Loki does", async () => {
    const rows = [row(2, "a", ["1", "2", "3", "4"])];
    const at = async (phi: number) => {
      const out = await runUnwrapPlan(clientWith(rows), { ...plan, phi }, { ...grid, end: grid.start }, stats());
      return seriesOf(out)[0]!.points[0]!.v;
    };
    expect(await at(0.9)).toBeCloseTo(3.7, 12);
    expect(await at(0)).toBe(1);
    expect(await at(1)).toBe(4);
    expect(await at(1.5)).toBe(Infinity);
    expect(await at(-0.5)).toBe(-Infinity);
  });

  it("declines when the guard counted a row, or a bucket's list is not whole", async () => {
    expect(
      await runUnwrapPlan(clientWith([row(2, "a", ["1"]), row(3, "a", ["2"], { __bad: "1" })]), plan, grid, stats()),
    ).toBe("guarded");
    expect(await runUnwrapPlan(clientWith([row(2, "a", ["1", "2"], { __n: "3" })]), plan, grid, stats())).toBe(
      "incomplete",
    );
    expect(await runUnwrapPlan(clientWith([row(2, "a", [], { __v: "not json", __n: "1" })]), plan, grid, stats())).toBe(
      "incomplete",
    );
  });

  it("equals `quantile` over each window's values, whatever the values and their order", async () => {
    // The shape of every value the guard lets through: a plain decimal, never −0.
    const decimal = fc
      .tuple(fc.boolean(), fc.integer({ min: 0, max: 999_999_999 }), fc.option(fc.integer({ min: 0, max: 999_999 })))
      .map(
        ([neg, int, frac]) =>
          `${neg && (int > 0 || (frac ?? 0) > 0) ? "-" : ""}${int}${frac === null ? "" : `.${frac}`}`,
      );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.array(decimal, { minLength: 1, maxLength: 8 })), {
          maxLength: 7,
        }),
        fc.constantFrom(0, 0.01, 0.25, 0.5, 0.9, 0.99, 1),
        async (buckets, phi) => {
          // One row per bucket minute (the origin groups them so).
          const byMinute = new Map<number, string[]>();
          for (const [m, values] of buckets) byMinute.set(m, [...(byMinute.get(m) ?? []), ...values]);
          const rows = [...byMinute].map(([m, values]) => row(m, "a", values));
          const out = seriesOf(await runUnwrapPlan(clientWith(rows), { ...plan, phi }, grid, stats()));
          const expected: { t: bigint; v: number }[] = [];
          for (let t = grid.start; t <= grid.end; t += grid.step) {
            // The window of t holds the buckets ending at minutes t − 2 … t (starting at t − 3 … t − 1).
            const minute = Number(t / MINUTE);
            const values: number[] = [];
            for (let m = minute - 3; m < minute; m++) values.push(...(byMinute.get(m) ?? []).map(Number));
            if (values.length > 0) expected.push({ t, v: quantile(phi, values) });
          }
          expect(out[0]?.points ?? []).toEqual(expected);
        },
      ),
      { numRuns: 300, seed: 2611 },
    );
  });

  it("equals `quantile` over each window as windows slide by several buckets, jump past them, and repeat values", async () => {
    // Few distinct values, so that a bucket leaving a window takes values equal to ones that stay.
    const value = fc.constantFrom("0", "1", "2", "2.5", "-3", "10");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.array(value, { minLength: 1, maxLength: 6 })), {
          maxLength: 25,
        }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(0, 0.3, 0.5, 0.99, 1),
        async (buckets, bucketsPerWindow, stepMinutes, phi) => {
          const byMinute = new Map<number, string[]>();
          for (const [m, values] of buckets) byMinute.set(m, [...(byMinute.get(m) ?? []), ...values]);
          const rows = [...byMinute].map(([m, values]) => row(m, "a", values));
          const wide = { ...plan, phi, bucketsPerWindow, window: { start: 1n, end: 40n * MINUTE + 1n } };
          const steps = { start: MINUTE, end: 36n * MINUTE, step: BigInt(stepMinutes) * MINUTE, instant: false };
          const out = seriesOf(await runUnwrapPlan(clientWith(rows), wide, steps, stats()));
          const expected: { t: bigint; v: number }[] = [];
          for (let t = steps.start; t <= steps.end; t += steps.step) {
            // The window of t holds the buckets starting at minutes t − bucketsPerWindow … t − 1.
            const minute = Number(t / MINUTE);
            const values: number[] = [];
            for (let m = minute - bucketsPerWindow; m < minute; m++)
              values.push(...(byMinute.get(m) ?? []).map(Number));
            if (values.length > 0) expected.push({ t, v: quantile(phi, values) });
          }
          expect(out[0]?.points ?? []).toEqual(expected);
        },
      ),
      { numRuns: 400, seed: 2626 },
    );
  });

  it("gives no sample for buckets without values", async () => {
    const out = await runUnwrapPlan(
      clientWith([row(2, "a", [], { __n: "0" }), row(2, "b", ["5"])]),
      plan,
      grid,
      stats(),
    );
    expect(seriesOf(out).map((s) => s.labels["pod"])).toEqual(["b"]);
  });
});
