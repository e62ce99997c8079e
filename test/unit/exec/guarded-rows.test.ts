/**
 * The Worker's counts of a guard's rows added to the origin's: per series and evaluation time,
 * before a rate divides, so that the sum is the count over every row.
 */
import { describe, expect, it } from "vitest";
import { countedSeries, mergedSamples, seriesOf } from "../../../src/exec/guarded-rows";

const S = 1_000_000_000n;
// Buckets of 60 s ending at 60k s − 1 ns; windows of one bucket, evaluated every 60 s.
const GRID = { start: 120n * S, end: 240n * S, step: 60n * S, instant: false };
const PLAN = { offset: 0n, width: 60n * S, bucketsPerWindow: 1 };
const end = (k: bigint) => k * 60n * S - 1n;
const COUNTS = {
  // The origin's buckets, ranks 0..3 standing for ends at 60, 120, 180 and 240 s.
  rankEnds: [end(1n), end(2n), end(3n), end(4n)],
  groups: [
    { labels: { m: "GET" }, ranks: [1, 2], values: [3, 5] },
    { labels: { m: "PUT" }, ranks: [3], values: [2] },
  ],
  guardedRows: 2,
};

describe("countedSeries", () => {
  it("adds the guard's counts to the origin's per series and time, then divides a rate", () => {
    const guarded = [
      { labels: { m: "GET" }, points: [{ t: 180n * S, v: 1 }] },
      { labels: { m: "DELETE" }, points: [{ t: 120n * S, v: 1 }] },
    ];
    const counts = countedSeries(COUNTS, GRID, { ...PLAN, perSeconds: 0 }, guarded);
    const byLabel = Object.fromEntries(counts.map((s) => [s.labels.m, s.points.map((p) => [Number(p.t / S), p.v])]));
    expect(byLabel).toEqual({
      GET: [
        [120, 3],
        [180, 6],
      ],
      PUT: [[240, 2]],
      DELETE: [[120, 1]],
    });
    const rates = countedSeries(COUNTS, GRID, { ...PLAN, perSeconds: 60 }, guarded);
    expect(rates.find((s) => s.labels.m === "GET")!.points.map((p) => p.v)).toEqual([3 / 60, 6 / 60]);
  });

  it("without guard rows, is the origin's window totals", () => {
    const counts = countedSeries({ ...COUNTS, guardedRows: 0 }, GRID, { ...PLAN, perSeconds: 0 });
    expect(counts.map((s) => [s.labels.m, s.points.length])).toEqual([
      ["GET", 2],
      ["PUT", 1],
    ]);
  });
});

describe("seriesOf", () => {
  it("reads an instant vector's samples as one point each", () => {
    expect(seriesOf({ type: "vector", t: 5n, samples: [{ labels: { a: "1" }, v: 2 }] })).toEqual([
      { labels: { a: "1" }, points: [{ t: 5n, v: 2 }] },
    ]);
  });
});

describe("mergedSamples", () => {
  const at = (k: bigint) => k * 60n * S;
  // The origin's window aggregates of its rows, and the Worker's of the guard's rows.
  const origin = [
    {
      labels: { m: "GET" },
      points: [
        { t: at(2n), v: 10 },
        { t: at(3n), v: 4 },
      ],
    },
    { labels: { m: "PUT" }, points: [{ t: at(3n), v: 2 }] },
  ];
  const guarded = [
    { labels: { m: "GET" }, points: [{ t: at(3n), v: 8 }] },
    { labels: { m: "DELETE" }, points: [{ t: at(2n), v: 1 }] },
  ];
  const byLabel = (series: ReturnType<typeof mergedSamples>) =>
    Object.fromEntries(series.map((s) => [s.labels.m, s.points.map((p) => [Number(p.t / S), p.v])]));

  it("adds sums per series and time, and divides a rate's after adding", () => {
    const sums = byLabel(mergedSamples("sum", { values: origin }, { values: guarded }, 60));
    expect(sums).toEqual({
      GET: [
        [120, 10],
        [180, 12],
      ],
      PUT: [[180, 2]],
      DELETE: [[120, 1]],
    });
    const rates = byLabel(mergedSamples("rate", { values: origin }, { values: guarded }, 60));
    expect(rates["GET"]).toEqual([
      [120, 10 / 60],
      [180, 12 / 60],
    ]);
  });

  it("compares extremes, a NaN giving way to any other value as Loki's fold", () => {
    expect(byLabel(mergedSamples("min", { values: origin }, { values: guarded }, 60))["GET"]).toEqual([
      [120, 10],
      [180, 4],
    ]);
    expect(byLabel(mergedSamples("max", { values: origin }, { values: guarded }, 60))["GET"]).toEqual([
      [120, 10],
      [180, 8],
    ]);
    const nan = [{ labels: { m: "GET" }, points: [{ t: at(3n), v: NaN }] }];
    expect(byLabel(mergedSamples("max", { values: origin }, { values: nan }, 60))["GET"]).toEqual([
      [120, 10],
      [180, 4],
    ]);
    expect(byLabel(mergedSamples("min", { values: nan }, { values: origin }, 60))["GET"]).toEqual([
      [120, 10],
      [180, 4],
    ]);
  });

  it("averages from both sides' sums and counts, not from their averages", () => {
    const counts = (series: typeof origin, n: number[]) =>
      series.map((s, i) => ({ labels: s.labels, points: s.points.map((p) => ({ t: p.t, v: n[i]! })) }));
    const avg = mergedSamples(
      "avg",
      { values: origin, counts: counts(origin, [4, 1]) },
      { values: guarded, counts: counts(guarded, [2, 1]) },
      60,
    );
    // GET at 180 s: (4 + 8) / (4 + 2), where the averages' average would be (4 + 4) / 2.
    expect(byLabel(avg)).toEqual({
      GET: [
        [120, 2.5],
        [180, 2],
      ],
      PUT: [[180, 2]],
      DELETE: [[120, 1]],
    });
  });
});
