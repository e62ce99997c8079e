import { describe, expect, it } from "vitest";
import { evaluateMetric, PipelineError, type MetricQuery } from "../../../../src/engine/metric";
import type { MetricResult, Series } from "../../../../src/engine/types";
import { by, range } from "./support/ast";
import { SEC, labelSource, sample } from "./support/memory-source";

const A = { app: "a", pod: "a-1" };
const B = { app: "a", pod: "a-2" };
// Series A: samples at 10, 20, 30, 65 s with values 1, 2, 3, 4. Series B: 40 s (value 10), 95 s (value 20).
const data = [
  sample(10, 1, A),
  sample(20, 2, A),
  sample(30, 3, A),
  sample(65, 4, A),
  sample(40, 10, B),
  sample(95, 20, B),
];
// Steps t = 60, 90, 120 s with a 60 s range: windows (0,60], (30,90], (60,120].
const q: MetricQuery = { start: 60n * SEC, end: 120n * SEC, step: 30n * SEC, instant: false };

function points(result: MetricResult, labels: Record<string, string>): Array<[number, number]> {
  if (result.type !== "matrix") throw new Error(result.type);
  const s = result.series.find((x: Series) => JSON.stringify(x.labels) === JSON.stringify(labels));
  return (s?.points ?? []).map((p) => [Number(p.t / SEC), p.v]);
}

async function run(expr: Parameters<typeof evaluateMetric>[0], query = q) {
  return evaluateMetric(expr, query, labelSource(data));
}

describe("range aggregations on sliding windows", () => {
  it("count_over_time counts samples in (t − range, t]", async () => {
    const r = await run(range("count_over_time", 'app="a"', "60s"));
    // A: (0,60] has 10,20,30 → 3; (30,90] has 65 → 1 (30 is excluded); (60,120] has 65 → 1.
    expect(points(r, A)).toEqual([
      [60, 3],
      [90, 1],
      [120, 1],
    ]);
    // B: (0,60] has 40; (30,90] has 40; (60,120] has 95.
    expect(points(r, B)).toEqual([
      [60, 1],
      [90, 1],
      [120, 1],
    ]);
  });
  it("rate divides the count by the range in seconds, or the unwrapped sum when unwrapped", async () => {
    expect(points(await run(range("rate", 'app="a"', "60s")), A)).toEqual([
      [60, 3 / 60],
      [90, 1 / 60],
      [120, 1 / 60],
    ]);
    const unwrapped = range("rate", 'app="a"', "60s", { unwrap: { label: "x", conversion: "", postFilters: [] } });
    expect(points(await run(unwrapped), A)).toEqual([
      [60, 6 / 60],
      [90, 4 / 60],
      [120, 4 / 60],
    ]);
  });
  it("bytes_over_time / sum_over_time sum values and bytes_rate divides by the range", async () => {
    expect(points(await run(range("bytes_over_time", 'app="a"', "60s")), B)).toEqual([
      [60, 10],
      [90, 10],
      [120, 20],
    ]);
    expect(points(await run(range("sum_over_time", 'app="a"', "60s")), A)).toEqual([
      [60, 6],
      [90, 4],
      [120, 4],
    ]);
    expect(points(await run(range("bytes_rate", 'app="a"', "60s")), A)).toEqual([
      [60, 0.1],
      [90, 4 / 60],
      [120, 4 / 60],
    ]);
  });
  it("avg/min/max/first/last over the window", async () => {
    expect(points(await run(range("avg_over_time", 'app="a"', "60s")), A)).toEqual([
      [60, 2],
      [90, 4],
      [120, 4],
    ]);
    expect(points(await run(range("min_over_time", 'app="a"', "60s")), A)).toEqual([
      [60, 1],
      [90, 4],
      [120, 4],
    ]);
    expect(points(await run(range("max_over_time", 'app="a"', "60s")), A)).toEqual([
      [60, 3],
      [90, 4],
      [120, 4],
    ]);
    // Samples arrive newest first from the source; first/last still go by timestamp.
    expect(points(await run(range("first_over_time", 'app="a"', "60s")), A)).toEqual([
      [60, 1],
      [90, 4],
      [120, 4],
    ]);
    expect(points(await run(range("last_over_time", 'app="a"', "60s")), A)).toEqual([
      [60, 3],
      [90, 4],
      [120, 4],
    ]);
  });
  it("stdvar/stddev are population statistics", async () => {
    // {1,2,3}: mean 2, squared deviations 1+0+1 = 2, / 3.
    expect(points(await run(range("stdvar_over_time", 'app="a"', "60s")), A)[0]).toEqual([60, 2 / 3]);
    expect(points(await run(range("stddev_over_time", 'app="a"', "60s")), A)[0]![1]).toBeCloseTo(Math.sqrt(2 / 3), 15);
    // A single sample has zero variance.
    expect(points(await run(range("stdvar_over_time", 'app="a"', "60s")), A)[1]).toEqual([90, 0]);
  });
  it("quantile_over_time interpolates between closest ranks", async () => {
    // {1,2,3}, φ=0.9: rank 0.9·2 = 1.8 → 2·0.2 + 3·0.8 = 2.8.
    const r = await run(range("quantile_over_time", 'app="a"', "60s", { param: 0.9 }));
    expect(points(r, A)[0]![1]).toBeCloseTo(2.8, 12);
    expect(points(r, A).slice(1)).toEqual([
      [90, 4],
      [120, 4],
    ]);
    const out = await run(range("quantile_over_time", 'app="a"', "60s", { param: 1.5 }));
    expect(points(out, A)[0]).toEqual([60, Infinity]);
  });
  it("omits steps whose window is empty (no zero filling) when range < step", async () => {
    // range 10 s: windows (50,60], (80,90], (110,120]: A has nothing, B has nothing either.
    const r = await run(range("count_over_time", 'app="a"', "10s"));
    expect(r).toEqual({ type: "matrix", series: [] });
    // range 30 s: (30,60] → A: none, B: 40; (60,90] → A: 65; (90,120] → B: 95.
    const r30 = await run(range("count_over_time", 'app="a"', "30s"));
    expect(points(r30, A)).toEqual([[90, 1]]);
    expect(points(r30, B)).toEqual([
      [60, 1],
      [120, 1],
    ]);
  });
  it("offset shifts the window back but keeps the step timestamps", async () => {
    // offset 30 s: t=60 covers (−30,30] → A: 10,20,30 → 3; t=90 covers (0,60] → 3; t=120 covers (30,90] → 1.
    const r = await run(range("count_over_time", 'app="a"', "60s", { offset: "30s" }));
    expect(points(r, A)).toEqual([
      [60, 3],
      [90, 3],
      [120, 1],
    ]);
  });
  it("grouping on the range aggregation applies to the samples before aggregating", async () => {
    // by (app) merges A and B: (0,60] → 1,2,3,10; (30,90] → 10,4; (60,120] → 4,20.
    const r = await run(range("max_over_time", 'app="a"', "60s", { grouping: by("app") }));
    expect(points(r, { app: "a" })).toEqual([
      [60, 10],
      [90, 10],
      [120, 20],
    ]);
    const avg = await run(range("avg_over_time", 'app="a"', "60s", { grouping: by("app") }));
    expect(points(avg, { app: "a" })).toEqual([
      [60, 4],
      [90, 7],
      [120, 12],
    ]);
  });
  it("evaluates an instant query as one window ending at the query time", async () => {
    const r = await run(range("count_over_time", 'app="a"', "60s"), {
      start: 90n * SEC,
      end: 90n * SEC,
      step: 0n,
      instant: true,
    });
    expect(r).toEqual({
      type: "vector",
      t: 90n * SEC,
      samples: [
        { labels: A, v: 1 },
        { labels: B, v: 1 },
      ],
    });
  });
  it("asks the source for (start − offset − range, end − offset] once per range aggregation", async () => {
    const source = labelSource(data);
    await evaluateMetric(range("count_over_time", 'app="a"', "60s", { offset: "30s" }), q, source);
    expect(source.spans).toEqual([[-30n * SEC, 90n * SEC]]);
  });
});

describe("absent_over_time", () => {
  it("is 1 with the selector's equality labels where the window is empty", async () => {
    // Non-equality matchers and repeated names drop the label (Loki's absentLabels).
    const r = await evaluateMetric(
      range("absent_over_time", 'app="a", pod=~"a-.*", job="j"', "10s"),
      q,
      labelSource(data),
    );
    // Windows (50,60], (80,90], (110,120] hold no samples of app="a" with job="j".
    expect(r).toEqual({
      type: "matrix",
      series: [{ labels: { app: "a", job: "j" }, points: [60n, 90n, 120n].map((t) => ({ t: t * SEC, v: 1 })) }],
    });
  });
  it("is absent where samples exist", async () => {
    // range 30 s: (30,60] has B@40, (60,90] has A@65, (90,120] has B@95 → nothing absent.
    const r = await evaluateMetric(range("absent_over_time", 'app="a"', "30s"), q, labelSource(data));
    expect(r).toEqual({ type: "matrix", series: [] });
    // range 20 s: (40,60], (70,90], (100,120] hold none of 10,20,30,40,65,95 → absent at every step.
    const r2 = await evaluateMetric(range("absent_over_time", 'app="a"', "20s"), q, labelSource(data));
    expect(r2.type === "matrix" && r2.series[0]!.points.length).toBe(3);
  });
});

describe("rate_counter", () => {
  it("reproduces Loki's extrapolated counter rate arithmetic", async () => {
    // Counter samples at 0.5 s, 1 s, 1.5 s with values 1, 3, 2 (a reset) in one 2 s window ending at t=2 s.
    const s = [sample(0.5, 1, A), sample(1, 3, A), sample(1.5, 2, A)];
    const r = await evaluateMetric(
      range("rate_counter", 'app="a"', "2s"),
      { start: 2n * SEC, end: 2n * SEC, step: 0n, instant: true },
      labelSource(s),
    );
    // increase = (2 − 1) + 3 (reset adds the previous value) = 4.
    // Loki's unit mix-up: durationToStart = 2000 ms / 1000 = 2; sampledInterval = 1e9 ns / 1000 = 1e6;
    // average = 5e5; threshold 5.5e5. durationToZero = 1e6 · 1/4 = 2.5e5 > 2, so durationToStart stays 2 (< threshold,
    // added); durationToEnd = 0 (< threshold, added). Result = 4 · (1e6 + 2) / 1e6 / 2 s.
    expect(r.type === "vector" && r.samples[0]!.v).toBeCloseTo((4 * (1e6 + 2)) / 1e6 / 2, 12);
  });
  it("is 0 with fewer than two samples", async () => {
    const r = await evaluateMetric(range("rate_counter", 'app="a"', "60s"), q, labelSource(data));
    expect(points(r, A)[1]).toEqual([90, 0]);
  });
});

describe("pipeline errors", () => {
  it("refuses to aggregate samples that still carry __error__", async () => {
    const bad = [sample(50, 1, { app: "a", __error__: "JSONParserErr" })];
    await expect(
      evaluateMetric(range("count_over_time", 'app="a"', "60s"), q, labelSource(bad)),
    ).rejects.toBeInstanceOf(PipelineError);
    await expect(evaluateMetric(range("count_over_time", 'app="a"', "60s"), q, labelSource(bad))).rejects.toThrow(
      /^pipeline error: 'JSONParserErr' for series: '\{__error__="JSONParserErr", app="a"\}'/,
    );
  });
  it("grouping does not hide the error, and __preserve_error__ or an empty __error__ lets it through", async () => {
    const bad = [sample(50, 1, { app: "a", __error__: "X" })];
    await expect(
      evaluateMetric(range("max_over_time", 'app="a"', "60s", { grouping: by("app") }), q, labelSource(bad)),
    ).rejects.toBeInstanceOf(PipelineError);
    const kept = [
      sample(50, 1, { app: "a", __error__: "X", __preserve_error__: "true" }),
      sample(50, 1, { app: "a", __error__: "" }),
    ];
    const r = await evaluateMetric(range("count_over_time", 'app="a"', "60s"), q, labelSource(kept));
    expect(r.type === "matrix" && r.series.length).toBe(2);
  });
  it("names the same series whatever order the rows come in: the earliest step's least label set", async () => {
    // Window (0,60] holds x at 50 s and w at 55 s; z at 20 s is outside every window; y at 80 s is a later step.
    const rows = [
      sample(80, 1, { app: "a", pod: "y", __error__: "X" }),
      sample(55, 1, { app: "a", pod: "w", __error__: "X" }),
      sample(20, 1, { app: "a", pod: "b" }),
      sample(50, 1, { app: "a", pod: "x", __error__: "X" }),
    ];
    const ops = [
      "count_over_time",
      "sum_over_time",
      "max_over_time",
      "quantile_over_time",
      "absent_over_time",
    ] as const;
    for (const op of ops) {
      for (const order of [rows, [...rows].reverse(), [rows[2]!, rows[0]!, rows[3]!, rows[1]!]]) {
        const expr =
          op === "quantile_over_time" ? range(op, 'app="a"', "60s", { param: 0.5 }) : range(op, 'app="a"', "60s");
        await expect(evaluateMetric(expr, q, labelSource(order)), op).rejects.toThrow(
          /^pipeline error: 'X' for series: '\{__error__="X", app="a", pod="w"\}'/,
        );
      }
    }
  });
});
