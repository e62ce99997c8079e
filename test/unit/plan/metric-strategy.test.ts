/**
 * Which strategy a metric query gets before any origin request: the shapes VictoriaLogs computes
 * whole, those it computes behind a guard, those read as projected rows, and the rest. That each
 * strategy gives Loki's answer is proved against the real VictoriaLogs in test/worker.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { RangeAggregationExpr, SampleExpr } from "../../../src/logql/ast";
import { planMetricStrategy, planPart, type MetricStrategy } from "../../../src/plan/metric-strategy";
import type { DerivedFieldRules } from "../../../src/engine/derived-fields";

const S = 1_000_000_000n;
const RANGE = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const INSTANT = { start: 7200n * S, end: 7200n * S, step: 0n, instant: true };
const DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: true };

const strategy = (q: string, grid = RANGE, pushdown = true, derived?: DerivedFieldRules) =>
  planMetricStrategy(parseExpr(q) as SampleExpr, grid, { pushdown, derived });

/** The strategy's kind, and for a Worker evaluation, whether it pushes parts and caches series. */
function summary(s: MetricStrategy): string {
  switch (s.kind) {
    case "pushed":
    case "guarded":
      return s.kind;
    case "projected":
    case "local":
      return `${s.kind}${s.pushParts ? "+parts" : ""}${s.seriesCache ? "+cache" : ""}`;
  }
}

describe("planMetricStrategy", () => {
  const cases: [query: string, range: string, instant: string][] = [
    // Counts and byte sums without parsers: the origin computes them whole, on any grid.
    ['sum by (app) (count_over_time({app="x"} |= "e" [5m]))', "pushed", "pushed"],
    ['sum(rate({app="x"} | drop __error__ [5m]))', "pushed", "pushed"],
    ['sum by (pod) (bytes_over_time({app="x"}[1m] offset 1h))', "pushed", "pushed"],
    // Unwrap aggregations over json: pushed with a guard; a quantile's range query goes chunk by
    // chunk as a part (projected meanwhile), and so does any instant query.
    ['sum by (app) (sum_over_time({app="x"} | json | unwrap v [5m]))', "guarded", "local+parts"],
    ['max_over_time({app="x"} | json | unwrap v [5m]) by (pod)', "guarded", "projected+parts"],
    ['avg_over_time({app="x"} | json | __error__="" | unwrap v [5m]) by (pod)', "guarded", "projected+parts"],
    ['quantile_over_time(0.9, {app="x"} | json | unwrap v [5m]) by (pod)', "projected+parts+cache", "projected+parts"],
    // Variances send their buckets' values, as a quantile does: chunk by chunk, as a part.
    ['stddev_over_time({app="x"} | json | unwrap v [5m]) by (pod)', "projected+parts+cache", "projected+parts"],
    [
      'sum by (pod) (stdvar_over_time({app="x"} | json | unwrap v [5m]) by (pod))',
      "projected+parts+cache",
      "projected+parts",
    ],
    // Over logfmt: pushed with the counting push-down's values and guard, not projected.
    ['max_over_time({app="x"} | logfmt | unwrap v [5m]) by (pod)', "guarded", "local+parts"],
    // Conversions: pushed per unit for values of their shape.
    ['max_over_time({app="x"} | json | unwrap duration(v) [5m]) by (pod)', "guarded", "projected+parts"],
    // A first or last: pushed, the samples tied at its time checked; never projected.
    ['first_over_time({app="x"} | json | unwrap v [5m]) by (pod)', "guarded", "local+parts"],
    // Over regexp and pattern: the extraction push-down's values and guard.
    ['max_over_time({app="x"} | regexp "(?P<v>.)" | unwrap v [5m]) by (pod)', "guarded", "local+parts"],
    // Other parsers, no grouping: whole lines.
    ['max_over_time({app="x"} | unpack | unwrap v [5m]) by (pod)', "local+parts+cache", "local+parts"],
    ['stddev_over_time({app="x"} | json | unwrap v [5m])', "local+parts+cache", "local+parts"],
    ['sum by (level) (count_over_time({app="x"} | json [5m]))', "local+parts+cache", "local+parts"],
    ['count_over_time({app="x"}[5m])', "local+parts+cache", "local+parts"],
    // Mixed trees: evaluated by the Worker, their pushable parts pushed per grid.
    ['sum(count_over_time({app="x"}[5m])) / sum(count_over_time({app="y"}[5m]))', "local+parts+cache", "local+parts"],
    [
      'sum(count_over_time({app="x"}[5m])) / stddev_over_time({app="x"} | json | unwrap v [5m]) by (app)',
      "projected+parts+cache",
      "projected+parts",
    ],
    ['topk(3, sum by (app) (count_over_time({app="x"}[5m])))', "local+parts+cache", "local+parts"],
    // Nothing read from the origin: nothing to cache.
    ["vector(1) + 2", "local+parts", "local+parts"],
  ];
  it.each(cases)("%s: %s (range), %s (instant)", (query, range, instant) => {
    expect(summary(strategy(query, RANGE))).toBe(range);
    expect(summary(strategy(query, INSTANT))).toBe(instant);
  });

  it("plans nothing for the origin when push-down is off", () => {
    for (const [query] of cases) {
      const s = strategy(query, RANGE, false);
      expect(s.kind === "local" && !s.pushParts, query).toBe(true);
    }
  });

  it("falls back to whole lines, without parts, when the guard declines a query pushed whole", () => {
    const s = strategy('min by (app) (min_over_time({app="x"} | json | unwrap v [5m]))');
    if (s.kind !== "guarded") throw new Error(`guarded expected, got ${s.kind}`);
    expect(s.plan).toMatchObject({ fn: "min", groupBy: ["app"] });
    expect(s.fallback).toEqual({ kind: "local", pushParts: false, seriesCache: true });
  });

  it("falls back from projected rows to whole lines, still pushing parts", () => {
    const expr = parseExpr('stddev_over_time({app="x"} | json | unwrap v [5m]) by (pod)') as RangeAggregationExpr;
    const s = planMetricStrategy(expr, RANGE, { pushdown: true });
    if (s.kind !== "projected") throw new Error(`projected expected, got ${s.kind}`);
    expect([...s.projections.keys()]).toEqual([expr]);
    expect(s.projections.get(expr)).toMatchObject({ groupBy: ["pod"], valueField: "__unwrap_v" });
    expect(s.whole).toMatchObject({ kind: "guarded", plan: { fn: "stddev" } });
    expect(s.fallback).toEqual({ kind: "local", pushParts: true, seriesCache: true, whole: s.whole });
  });

  it("keeps the whole query's push-down it planned, so that the evaluation does not plan it again", () => {
    const s = strategy('quantile_over_time(0.5, {app="x"} | json | unwrap v [5m]) by (pod)', INSTANT);
    if (s.kind !== "projected") throw new Error(`projected expected, got ${s.kind}`);
    expect(s.whole).toMatchObject({ kind: "guarded", plan: { fn: "quantile", phi: 0.5 } });
    expect(s.fallback.whole).toBe(s.whole);
  });

  it("leaves to the Worker what the origin computes only on a grid of few enough buckets", () => {
    // 30 days at a 1 s step: more buckets than a push-down holds; chunks of it may still be pushed.
    const long = { start: 0n, end: 30n * 86_400n * S, step: S, instant: false };
    expect(summary(strategy('sum(count_over_time({app="x"}[5m]))', long))).toBe("local+parts+cache");
    expect(summary(strategy('sum(count_over_time({app="x"}[5m]))', { ...long, end: 3600n * S }))).toBe("pushed");
  });

  it("keeps labels the Worker derives in the Worker", () => {
    const q = 'sum by (service_name) (count_over_time({app="x"}[5m]))';
    expect(summary(strategy(q))).toBe("pushed");
    expect(summary(strategy(q, RANGE, true, DISCOVERY))).toBe("local+parts+cache");
  });
});

describe("planPart", () => {
  it("offers a subtree to the origin as counted buckets, or behind a guard, or not at all", () => {
    const part = (q: string) => planPart(parseExpr(q) as SampleExpr, RANGE)?.kind;
    expect(part('sum(count_over_time({app="x"}[5m]))')).toBe("pushed");
    expect(part('quantile_over_time(0.9, {app="x"} | json | unwrap v [5m]) by (pod)')).toBe("guarded");
    // The series of a bare count: counted per group of rows sharing their labels' inputs.
    expect(part('count_over_time({app="x"}[5m])')).toBe("series");
    expect(part('avg by (app) (rate({app="x"}[5m]))')).toBeUndefined();
    expect(part('count_over_time({app="x"} | json [5m])')).toBeUndefined();
    expect(part('count_over_time({app="x"} | line_format "{{.a}}" [5m])')).toBeUndefined();
  });

  it("offers counts over a parser as a parsed part, which leaves the query a Worker evaluation", () => {
    const part = (q: string) => planPart(parseExpr(q) as SampleExpr, RANGE)?.kind;
    const drilldownField =
      'sum by (method) (count_over_time({app="x"} | json | drop __error__, __error_details__ [1m]))';
    expect(part(drilldownField)).toBe("parsed");
    expect(part('sum by (job) (count_over_time({app="x"} | logfmt | attempt > 3 [5m]))')).toBe("parsed");
    // Loki's pipeline error on a malformed line: the origin tells such lines (and sends the query back).
    expect(part('sum by (method) (count_over_time({app="x"} | json [1m]))')).toBe("parsed");
    expect(summary(strategy(drilldownField))).toBe("local+parts+cache");
    const s = strategy(drilldownField, INSTANT);
    expect(s.kind === "local" && s.whole?.kind).toBe("parsed");
  });

  it("offers counts grouped by detected_level as a levels part when levels are discovered", () => {
    const part = (q: string, derived?: DerivedFieldRules) => planPart(parseExpr(q) as SampleExpr, RANGE, derived)?.kind;
    const volume = 'sum by (level, detected_level) (count_over_time({app="x"} | drop __error__ [1m]))';
    const levels = 'sum by (detected_level) (count_over_time({service_name="w"} | drop __error__ [1m]))';
    expect(part(volume, DISCOVERY)).toBe("levels");
    expect(part(levels, DISCOVERY)).toBe("levels");
    expect(summary(strategy(volume, RANGE, true, DISCOVERY))).toBe("local+parts+cache");
    // Without discovery, detected_level is a field like any other: pushed whole.
    expect(part(volume)).toBe("pushed");
    // service_name is derived from the stream's labels: grouped by the stream, derived per group.
    expect(part('sum by (service_name, detected_level) (count_over_time({app="x"}[1m]))', DISCOVERY)).toBe("series");
    expect(part('sum by (detected_level) (count_over_time({app="x"} | json [1m]))', DISCOVERY)).toBe("levels");
    expect(part('sum by (detected_level) (count_over_time({app="x"} | json | line_format "x" [1m]))', DISCOVERY)).toBe(
      "levels",
    );
    expect(
      part(
        'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{ urldecode .a }}" [1m]))',
        DISCOVERY,
      ),
    ).toBeUndefined();
  });
});
