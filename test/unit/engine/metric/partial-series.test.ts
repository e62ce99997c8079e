import { describe, expect, it } from "vitest";
import { evaluateMetric, QueryLimitError, type MetricQuery } from "../../../../src/engine/metric";
import type { MetricResult } from "../../../../src/engine/types";
import { range } from "./support/ast";
import { SEC, labelSource, sample } from "./support/memory-source";

const WARNING = "maximum number of series (2) reached for a single query; returning partial results";
const pods = ["p1", "p2", "p3", "p4"];
// Pod i has i + 1 samples at 10 s, 20 s, ...: more series than the limit of 2.
const data = pods.flatMap((pod, i) =>
  Array.from({ length: i + 1 }, (_, k) => sample(10 * (k + 1), 1, { app: "a", pod })),
);
const q: MetricQuery = { start: 60n * SEC, end: 120n * SEC, step: 30n * SEC, instant: false };
const expr = range("count_over_time", 'app="a"', "60s");

function byPod(r: MetricResult): Map<string, unknown> {
  if (r.type === "matrix") return new Map(r.series.map((s) => [s.labels.pod!, s.points]));
  if (r.type === "vector") return new Map(r.samples.map((s) => [s.labels.pod!, s.v]));
  throw new Error(r.type);
}

describe("a partial series limit (Logs Drilldown)", () => {
  it.each([
    ["range", q],
    ["instant", { start: 60n * SEC, end: 60n * SEC, step: 0n, instant: true }],
  ] as [string, MetricQuery][])("%s: keeps `max` series with their whole values and says so", async (_, query) => {
    const whole = byPod(await evaluateMetric(expr, query, labelSource(data)));
    const r = await evaluateMetric(expr, query, labelSource(data), { maxSeries: 2, partialSeries: true });
    expect(r.warnings).toEqual([WARNING]);
    const part = byPod(r);
    expect(part.size).toBe(2);
    for (const [pod, values] of part) expect(values).toEqual(whole.get(pod));
    await expect(evaluateMetric(expr, query, labelSource(data), { maxSeries: 2 })).rejects.toBeInstanceOf(
      QueryLimitError,
    );
  });

  it("answers at the limit whole, without a warning", async () => {
    const r = await evaluateMetric(expr, q, labelSource(data), { maxSeries: 4, partialSeries: true });
    expect(r.warnings).toBeUndefined();
    expect(byPod(r).size).toBe(4);
  });
});
