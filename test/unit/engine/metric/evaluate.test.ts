import { describe, expect, it } from "vitest";
import { evaluateMetric, MetricEvalError, QueryLimitError, type SampleSource } from "../../../../src/engine/metric";
import type { Labels } from "../../../../src/engine/types";
import { statusOf } from "../../../../src/http/errors";
import { agg, bin, by, lit, range, vec } from "./support/ast";
import { SEC, labelSource, memorySource, sample } from "./support/memory-source";

const rangeQ = { start: 60n * SEC, end: 180n * SEC, step: 60n * SEC, instant: false };
const instantQ = { start: 120n * SEC, end: 120n * SEC, step: 0n, instant: true };
const none = memorySource(() => []);

describe("literals and vector()", () => {
  it("a literal-only query is a scalar at the query time for instant queries", async () => {
    // (2 + 3) * 4 ^ 2 / 8 = 10; 2 > bool 1 = 1 (inst-scalar-arith, inst-cmp-bool-scalar).
    const e = bin("/", bin("*", bin("+", lit(2), lit(3)), bin("^", lit(4), lit(2))), lit(8));
    expect(await evaluateMetric(e, instantQ, none)).toEqual({ type: "scalar", t: 120n * SEC, v: 10 });
    expect(await evaluateMetric(bin(">", lit(2), lit(1), { bool: true }), instantQ, none)).toEqual({
      type: "scalar",
      t: 120n * SEC,
      v: 1,
    });
  });
  it("a literal-only range query is one label-less series at every step", async () => {
    expect(await evaluateMetric(lit(7), rangeQ, none)).toEqual({
      type: "matrix",
      series: [{ labels: {}, points: [60n, 120n, 180n].map((t) => ({ t: t * SEC, v: 7 })) }],
    });
  });
  it("vector(N) is a label-less vector at every step", async () => {
    expect(await evaluateMetric(vec(42), instantQ, none)).toEqual({
      type: "vector",
      t: 120n * SEC,
      samples: [{ labels: {}, v: 42 }],
    });
    const r = await evaluateMetric(bin("+", vec(1), vec(1)), instantQ, none);
    expect(r).toEqual({ type: "vector", t: 120n * SEC, samples: [{ labels: {}, v: 2 }] });
  });
  it("`or vector(0)` fills steps where the left side is empty", async () => {
    const src = labelSource([sample(100, 1, { app: "a" })]);
    // count over (t − 60 s, t]: t=60 → 0 samples, t=120 → 1, t=180 → 0.
    const r = await evaluateMetric(
      bin("or", agg("sum", range("count_over_time", 'app="a"', "60s")), vec(0)),
      rangeQ,
      src,
    );
    expect(r).toEqual({
      type: "matrix",
      series: [
        {
          labels: {},
          points: [
            { t: 60n * SEC, v: 0 },
            { t: 120n * SEC, v: 1 },
            { t: 180n * SEC, v: 0 },
          ],
        },
      ],
    });
  });
});

describe("result shape", () => {
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => sample(100, i, { app: "a", pod: `p${String(i).padStart(3, "0")}` }));
  it("orders instant vectors by labels unless the query sorts by value", async () => {
    const src = labelSource([
      sample(100, 1, { app: "a", pod: "z" }),
      sample(100, 1, { app: "a", pod: "z" }),
      sample(100, 1, { app: "a", pod: "b" }),
    ]);
    const counts = range("count_over_time", 'app="a"', "60s");
    const plain = await evaluateMetric(agg("sum", counts, by("pod")), instantQ, src);
    expect(plain.type === "vector" && plain.samples.map((s) => s.labels.pod)).toEqual(["b", "z"]);
    const sorted = await evaluateMetric(agg("sort_desc", agg("sum", counts, by("pod"))), instantQ, src);
    expect(sorted.type === "vector" && sorted.samples.map((s) => [s.labels.pod, s.v])).toEqual([
      ["z", 2],
      ["b", 1],
    ]);
  });
  it("throws Loki's series-limit error above max_query_series", async () => {
    const e = range("count_over_time", 'app="a"', "60s");
    await expect(evaluateMetric(e, rangeQ, labelSource(many(501)))).rejects.toBeInstanceOf(QueryLimitError);
    await expect(evaluateMetric(e, instantQ, labelSource(many(501)))).rejects.toThrow(
      "maximum number of series (500) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()",
    );
    const ok = await evaluateMetric(e, rangeQ, labelSource(many(500)));
    expect(ok.type === "matrix" && ok.series.length).toBe(500);
    const limitError = await evaluateMetric(e, rangeQ, labelSource(many(3)), { maxSeries: 2 }).catch((x: unknown) => x);
    expect(limitError).toBeInstanceOf(QueryLimitError);
    expect(statusOf(limitError as QueryLimitError)).toBe(400);
  });
  it("refuses past max_query_series while the samples arrive, not after reading them all", async () => {
    // One new series per batch, 10,000 batches: the refusal comes at the third series.
    let pulled = 0;
    const source: SampleSource = {
      async *samples() {
        for (let i = 0; i < 10_000; i++) {
          pulled++;
          yield [sample(100, 1, { app: "a", pod: `p${i}` })];
        }
      },
    };
    const e = range("count_over_time", 'app="a"', "60s");
    for (const q of [rangeQ, instantQ]) {
      pulled = 0;
      await expect(evaluateMetric(e, q, source, { maxSeries: 2 })).rejects.toBeInstanceOf(QueryLimitError);
      expect(pulled).toBe(3);
    }
  });
  it("sorts matrix series by labels and keeps per-step topk", async () => {
    // a: 3 then 1; b: 2 then 2 → topk(1) picks a at t=120, b at t=180.
    const s = [
      sample(70, 1, { app: "a" }),
      sample(80, 1, { app: "a" }),
      sample(90, 1, { app: "a" }),
      sample(150, 1, { app: "a" }),
    ];
    const t = [
      sample(100, 1, { app: "b" }),
      sample(110, 1, { app: "b" }),
      sample(130, 1, { app: "b" }),
      sample(170, 1, { app: "b" }),
    ];
    const r = await evaluateMetric(
      agg("topk", range("count_over_time", 'app=~"a|b"', "60s"), by(), 1),
      rangeQ,
      labelSource([...s, ...t]),
    );
    expect(r).toEqual({
      type: "matrix",
      series: [
        { labels: { app: "a" }, points: [{ t: 120n * SEC, v: 3 }] },
        { labels: { app: "b" }, points: [{ t: 180n * SEC, v: 2 }] },
      ],
    });
  });
  it("refuses approx_topk on range queries", async () => {
    await expect(
      evaluateMetric(agg("approx_topk", range("count_over_time", 'app="a"', "60s"), undefined, 1), rangeQ, none),
    ).rejects.toBeInstanceOf(MetricEvalError);
  });
});

describe("push-down", () => {
  it("uses a subtree the source computes and does not ask for its samples", async () => {
    const asked: string[] = [];
    const source: SampleSource = {
      // A source with no samples: the test asserts it is never asked.
      // eslint-disable-next-line require-yield
      async *samples(expr) {
        asked.push(expr.op);
      },
      async pushdown(expr) {
        if (expr.kind !== "VectorAggregation") return undefined;
        const labels: Labels = { app: "x" };
        return [
          {
            labels,
            points: [
              { t: 120n * SEC, v: 5 },
              { t: 121n * SEC, v: 99 },
            ],
          },
        ];
      },
    };
    const r = await evaluateMetric(
      bin("*", agg("sum", range("count_over_time", 'app="x"', "60s"), by("app")), lit(2)),
      rangeQ,
      source,
    );
    // The off-grid point (121 s) is ignored; 5 · 2 = 10.
    expect(r).toEqual({ type: "matrix", series: [{ labels: { app: "x" }, points: [{ t: 120n * SEC, v: 10 }] }] });
    expect(asked).toEqual([]);
  });
});
