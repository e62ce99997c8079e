/**
 * The table of range functions and vector aggregations (src/logql/functions.ts) against every site
 * that reads it: for each function of the table, the grammar names it, the lexer makes its token,
 * the builder accepts and refuses what the facts say with Loki's messages, the printer round-trips
 * it, the engine evaluates it, the sample extractor reads what the facts say, and the push-down
 * planners accept exactly the functions the facts allow.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { LogRangeExpr, SampleExpr, VectorAggregationExpr } from "../../../src/logql/ast";
import { LogQLParseError } from "../../../src/logql/errors";
import {
  RANGE_FUNCTION_NAMES,
  type RangeFunctionName,
  VECTOR_AGGREGATIONS,
  VECTOR_AGGREGATION_NAMES,
  type VectorAggregationName,
  rangeFunction,
  vectorAggregation,
} from "../../../src/logql/functions";
import { functionToken, lex } from "../../../src/logql/lexer";
import { parseUncached } from "../../../src/logql/parser";
import { printExpr } from "../../../src/logql/printer";
import { type SampleSource, evaluateMetric } from "../../../src/engine/metric";
import { RANGE_IMPLEMENTATIONS } from "../../../src/engine/metric/range/implementations";
import { VECTOR_IMPLEMENTATIONS, aggregateVector } from "../../../src/engine/metric/vector-aggregation";
import { compileSampleExtractor } from "../../../src/engine/pipeline";
import type { ExtractedSample, VectorSample } from "../../../src/engine/types";
import { planMetricPushdown } from "../../../src/plan/metric-pushdown";
import { planUnwrapPushdown } from "../../../src/plan/unwrap-pushdown";
import { planUnwrapProjection } from "../../../src/plan/unwrap-projection";
import { metricNeedsDerived } from "../../../src/plan/derived-use";

const errorOf = (q: string): string => {
  try {
    parseUncached(q);
  } catch (e) {
    expect(e).toBeInstanceOf(LogQLParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${q} to be rejected`);
};

/** `{app="a"}` plus the stages a call needs, as Loki prints a range aggregation. */
function rangeQuery(
  name: RangeFunctionName,
  o: { param?: string | null; unwrap?: boolean; json?: boolean; grouping?: string } = {},
): string {
  const facts = rangeFunction(name);
  const param = o.param === undefined ? (facts.param === "float" ? "0.5," : "") : o.param === null ? "" : `${o.param},`;
  const unwrap = o.unwrap ?? facts.unwrap === "required";
  const pipeline = (o.json ? " | json" : "") + (unwrap ? " | unwrap x" : "");
  return `${name}(${param}{app="a"}${pipeline}[5m])${o.grouping ?? ""}`;
}

const INNER = 'count_over_time({app="a"}[5m])';

function vectorQuery(name: VectorAggregationName, o: { param?: string | null; grouping?: string } = {}): string {
  const facts = vectorAggregation(name);
  const param = o.param === undefined ? (facts.param === "count" ? "2," : "") : o.param === null ? "" : `${o.param},`;
  return `${name}${o.grouping ?? ""}(${param}${INNER})`;
}

/** The names a grammar rule's alternatives return (`RATE { return "rate"; }`), with their tokens. */
function grammarAlternatives(rule: string): Array<[string, string]> {
  const grammar = readFileSync(new URL("../../../grammar/logql.peggy", import.meta.url), "utf8");
  const body = new RegExp(`\\n${rule}\\n((?: {2}.*\\n)+)`).exec(grammar)?.[1];
  if (body === undefined) throw new Error(`no rule ${rule} in the grammar`);
  return [...body.matchAll(/([A-Z_]+) \{ return "([a-z_]+)"; \}/g)].map((m) => [m[2]!, m[1]!]);
}

describe("the grammar and the lexer name exactly the table's functions", () => {
  it("RangeOp returns each range function, from its token", () => {
    const alternatives = grammarAlternatives("RangeOp");
    expect(alternatives.map(([name]) => name).sort()).toEqual([...RANGE_FUNCTION_NAMES].sort());
    for (const [name, token] of alternatives) expect(token).toBe(functionToken(name as RangeFunctionName));
  });

  it("VectorOp returns each vector aggregation, from its token", () => {
    const alternatives = grammarAlternatives("VectorOp");
    expect(alternatives.map(([name]) => name).sort()).toEqual([...VECTOR_AGGREGATION_NAMES].sort());
    for (const [name, token] of alternatives) expect(token).toBe(functionToken(name as VectorAggregationName));
  });

  it("lexes each name as its token before `(` and as a label name otherwise", () => {
    for (const name of [...RANGE_FUNCTION_NAMES, ...VECTOR_AGGREGATION_NAMES]) {
      expect(lex(`${name} (`).tokens[0]!.kind, name).toBe(functionToken(name));
      expect(lex(`${name.toUpperCase()} by (`).tokens[0]!.kind, name).toBe(functionToken(name));
      expect(lex(`{${name}="x"}`).tokens[1]!.kind, name).toBe("IDENTIFIER");
    }
  });

  it("the engine implements every function of the table, and nothing else", () => {
    expect(Object.keys(RANGE_IMPLEMENTATIONS).sort()).toEqual([...RANGE_FUNCTION_NAMES].sort());
    expect(Object.keys(VECTOR_IMPLEMENTATIONS).sort()).toEqual([...VECTOR_AGGREGATION_NAMES].sort());
    for (const name of VECTOR_AGGREGATION_NAMES) {
      expect(VECTOR_IMPLEMENTATIONS[name].kind === "rank", name).toBe(VECTOR_AGGREGATIONS[name].result === "series");
    }
  });
});

describe.each(RANGE_FUNCTION_NAMES)("range function %s", (name) => {
  const facts = rangeFunction(name);

  it("parses, prints in Loki's form and round-trips", () => {
    const variants = [rangeQuery(name)];
    if (facts.unwrap === "allowed") variants.push(rangeQuery(name, { unwrap: true }));
    if (facts.grouping) variants.push(rangeQuery(name, { grouping: " by (pod)" }));
    for (const q of variants) {
      const ast = parseUncached(q);
      expect(ast).toMatchObject({ kind: "RangeAggregation", op: name });
      expect(printExpr(ast)).toBe(q);
      expect(parseUncached(printExpr(ast))).toEqual(ast);
    }
  });

  it("refuses what the table refuses, with Loki's message", () => {
    if (facts.param === "none") {
      expect(errorOf(rangeQuery(name, { param: "3" }))).toBe(
        `parse error : parameter 3 not supported for operation ${name}`,
      );
    } else {
      expect(errorOf(rangeQuery(name, { param: null }))).toBe(`parse error : parameter required for operation ${name}`);
      expect((parseUncached(rangeQuery(name, { param: "0.25" })) as { param?: number }).param).toBe(0.25);
    }
    if (!facts.grouping) {
      expect(errorOf(rangeQuery(name, { grouping: " by (pod)" }))).toBe(
        `parse error : grouping not allowed for ${name} aggregation`,
      );
    }
    if (facts.unwrap === "forbidden") {
      expect(errorOf(rangeQuery(name, { unwrap: true }))).toBe(`parse error : invalid aggregation ${name} with unwrap`);
    }
    if (facts.unwrap === "required") {
      expect(errorOf(rangeQuery(name, { unwrap: false }))).toBe(
        `parse error : invalid aggregation ${name} without unwrap`,
      );
    }
  });

  it("extracts the sample value the table says it reads", () => {
    const line = 'x=2.5 msg="é"';
    const range = (unwrap: boolean): LogRangeExpr => ({
      kind: "LogRange",
      selector: {
        kind: "LogSelector",
        matchers: [],
        pipeline: [{ kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] }],
      },
      unwrap: unwrap ? { label: "x", conversion: "", postFilters: [] } : undefined,
      range: 60e9,
      offset: 0,
      rangeText: "1m",
    });
    const value = (unwrap: boolean) =>
      compileSampleExtractor(range(unwrap), name).process({ ts: 1n, line, stream: { app: "a" }, metadata: {} })?.value;
    if (facts.unwrap !== "forbidden") expect(value(true)).toBe(2.5);
    if (facts.unwrap !== "required") expect(value(false)).toBe(facts.reads === "bytes" ? 14 : 1);
    expect(facts.reads === "unwrapped").toBe(facts.unwrap === "required");
  });
});

describe("range functions evaluate to Loki's values", () => {
  const S = 1_000_000_000n;
  // Three samples of one series, 1, 4 and 2 at 1 s, 2 s and 3 s; an instant query at 4 s over [5m].
  const samples: ExtractedSample[] = [
    { ts: 1n * S, value: 1, labels: { app: "a" } },
    { ts: 2n * S, value: 4, labels: { app: "a" } },
    { ts: 3n * S, value: 2, labels: { app: "a" } },
  ];
  const source = (given: ExtractedSample[]): SampleSource => ({
    async *samples(_expr, from, to) {
      yield given.filter((s) => s.ts > from && s.ts <= to);
    },
  });
  const at4s = { start: 4n * S, end: 4n * S, step: S, instant: true };
  const evaluate = async (q: string, given = samples) => {
    const result = await evaluateMetric(parseUncached(q) as SampleExpr, at4s, source(given));
    if (result.type !== "vector") throw new Error(`not a vector: ${result.type}`);
    return result.samples;
  };
  // Reasoned from each function's definition; rate_counter as Loki's port of Prometheus'
  // extrapolation computes it (increase 2 − 1 + 4 before the reset, intervals in its mixed units).
  const expected: Record<RangeFunctionName, number | undefined> = {
    count_over_time: 3,
    rate: 3 / 300,
    rate_counter: (5 * (2_000_000 + 300)) / 2_000_000 / 300,
    bytes_over_time: 7,
    bytes_rate: 7 / 300,
    avg_over_time: 7 / 3,
    sum_over_time: 7,
    min_over_time: 1,
    max_over_time: 4,
    stdvar_over_time: 14 / 9,
    stddev_over_time: Math.sqrt(14 / 9),
    quantile_over_time: 2,
    first_over_time: 1,
    last_over_time: 2,
    // Present in the window: no sample.
    absent_over_time: undefined,
  };

  it.each(RANGE_FUNCTION_NAMES)("%s", async (name) => {
    const got = await evaluate(rangeQuery(name));
    const want = expected[name];
    if (want === undefined) expect(got).toEqual([]);
    else {
      expect(got).toHaveLength(1);
      expect(got[0]!.labels).toEqual({ app: "a" });
      expect(got[0]!.v).toBeCloseTo(want, 12);
    }
  });

  it("absent_over_time answers 1 where the window holds nothing", async () => {
    expect(await evaluate(rangeQuery("absent_over_time"), [])).toEqual([{ labels: { app: "a" }, v: 1 }]);
  });

  it("an unwrapped rate sums the values", async () => {
    expect((await evaluate(rangeQuery("rate", { unwrap: true })))[0]!.v).toBeCloseTo(7 / 300, 12);
  });
});

describe.each(VECTOR_AGGREGATION_NAMES)("vector aggregation %s", (name) => {
  const facts = vectorAggregation(name);

  it("parses, prints in Loki's form and round-trips", () => {
    const variants = [vectorQuery(name)];
    if (facts.grouping === "allowed") variants.push(vectorQuery(name, { grouping: " by (pod)" }));
    if (facts.grouping === "allowed") variants.push(vectorQuery(name, { grouping: " without (pod)" }));
    // Grouping without labels only: `by ()` is no grouping at all, and prints as such.
    if (facts.grouping === "no-labels") variants.push(vectorQuery(name, { grouping: " without ()" }));
    for (const q of variants) {
      const ast = parseUncached(q);
      expect(ast).toMatchObject({ kind: "VectorAggregation", op: name });
      expect(printExpr(ast)).toBe(q);
      expect(parseUncached(printExpr(ast))).toEqual(ast);
    }
  });

  it("refuses what the table refuses, with Loki's message", () => {
    if (facts.param === "none") {
      expect(errorOf(vectorQuery(name, { param: "3" }))).toBe(
        `parse error : unsupported parameter for operation ${name}(3,`,
      );
    } else {
      expect(errorOf(vectorQuery(name, { param: null }))).toBe(
        `parse error : parameter required for operation ${name}`,
      );
      expect(errorOf(vectorQuery(name, { param: "0" }))).toBe(
        `parse error : invalid parameter (must be greater than 0) ${name}(0`,
      );
      expect(errorOf(vectorQuery(name, { param: "1.5" }))).toBe(`parse error : invalid parameter ${name}(1.5,`);
    }
    if (facts.grouping === "forbidden") {
      expect(errorOf(vectorQuery(name, { grouping: " by (pod)" }))).toBe(
        `parse error : grouping not allowed for ${name} aggregation`,
      );
    }
    if (facts.grouping === "no-labels") {
      for (const grouping of [" by (pod)", " without (pod)"]) {
        expect(errorOf(vectorQuery(name, { grouping }))).toBe(
          "parse error : sort and sort_desc doesn't allow grouping by ",
        );
      }
    }
  });

  // Three series whose label order (2, 3, 1) is neither value order.
  const vec: VectorSample[] = [
    { labels: { app: "a", pod: "1" }, v: 2 },
    { labels: { app: "a", pod: "2" }, v: 3 },
    { labels: { app: "b", pod: "3" }, v: 1 },
  ];

  it("answers one sample per group, or the series themselves, as the table says", () => {
    const grouping = facts.grouping === "allowed" ? { without: false, labels: ["app"] } : undefined;
    const expr: VectorAggregationExpr = {
      kind: "VectorAggregation",
      op: name,
      expr: { kind: "Literal", value: 0 },
      param: facts.param === "count" ? 3 : undefined,
      grouping,
    };
    const out = aggregateVector(expr, vec);
    if (facts.result === "groups") {
      expect(out.map((s) => s.labels)).toEqual(grouping ? [{ app: "a" }, { app: "b" }] : [{}]);
    } else {
      expect(out).toHaveLength(3);
      for (const s of out) expect(vec).toContain(s);
    }
  });

  it("keeps an instant answer in value order only where the table says so", async () => {
    const S = 1_000_000_000n;
    const counts = vec.flatMap((s) =>
      Array.from({ length: s.v }, (_, i) => ({ ts: S + BigInt(i), value: 1, labels: s.labels })),
    );
    const source: SampleSource = {
      async *samples() {
        yield counts;
      },
    };
    const expr = parseUncached(vectorQuery(name, facts.param === "count" ? { param: "3" } : {})) as SampleExpr;
    const result = await evaluateMetric(expr, { start: 2n * S, end: 2n * S, step: S, instant: true }, source);
    if (result.type !== "vector") throw new Error(`not a vector: ${result.type}`);
    if (facts.result === "groups") return;
    const pods = result.samples.map((s) => s.labels.pod);
    const values = result.samples.map((s) => s.v);
    if (facts.ordersByValue) {
      const ascending = [...values].sort((a, b) => a - b);
      expect([ascending, [...ascending].reverse()]).toContainEqual(values);
    } else expect(pods).toEqual(["1", "2", "3"]);
  });

  it("is refused on range queries exactly when the table says instant only", async () => {
    const S = 1_000_000_000n;
    const expr = parseUncached(vectorQuery(name)) as SampleExpr;
    const source: SampleSource = {
      async *samples() {
        yield [];
      },
    };
    const run = evaluateMetric(expr, { start: S, end: 3n * S, step: S, instant: false }, source);
    if (facts.instantOnly) {
      await expect(run).rejects.toThrow(`${name} error: count min sketches are only supported on instant queries`);
    } else await expect(run).resolves.toMatchObject({ type: "matrix" });
  });

  it("needs the Worker's derived labels exactly when it keeps the series' own labels", () => {
    const expr = parseUncached(vectorQuery(name)) as SampleExpr;
    expect(metricNeedsDerived(expr, new Set(["service_name"]))).toBe(facts.result === "series");
  });
});

describe("the push-down planners follow the table", () => {
  const S = 1_000_000_000n;
  const grid = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };

  it.each(RANGE_FUNCTION_NAMES)("counting lines in buckets: %s", (name) => {
    const facts = rangeFunction(name);
    if (facts.unwrap === "required") return;
    for (const outer of VECTOR_AGGREGATION_NAMES) {
      if (VECTOR_AGGREGATIONS[outer].param !== "none" || VECTOR_AGGREGATIONS[outer].grouping !== "allowed") continue;
      const q = `${outer} by (app) (${rangeQuery(name)})`;
      const plan = planMetricPushdown(parseUncached(q) as SampleExpr, grid);
      const lines = facts.origin.lines;
      if (!lines || facts.mergedBy !== outer || outer !== "sum") expect(plan, q).toBeUndefined();
      else {
        expect(plan, q).toMatchObject({ value: lines.total, perSeconds: lines.perSecond ? 300 : 0 });
      }
    }
  });

  it.each(RANGE_FUNCTION_NAMES)("aggregating json-unwrapped values in buckets: %s", (name) => {
    const facts = rangeFunction(name);
    if (facts.unwrap === "forbidden") return;
    const stat = facts.origin.unwrapped;
    if (facts.grouping) {
      const q = rangeQuery(name, { unwrap: true, json: true, grouping: " by (app)" });
      expect(planUnwrapPushdown(parseUncached(q) as SampleExpr, grid)?.fn, q).toBe(stat);
    }
    for (const outer of VECTOR_AGGREGATION_NAMES) {
      if (VECTOR_AGGREGATIONS[outer].param !== "none" || VECTOR_AGGREGATIONS[outer].grouping !== "allowed") continue;
      const q = `${outer} by (app) (${rangeQuery(name, { unwrap: true, json: true })})`;
      const want = facts.mergedBy === outer ? stat : undefined;
      expect(planUnwrapPushdown(parseUncached(q) as SampleExpr, grid)?.fn, q).toBe(want);
    }
  });

  it.each(RANGE_FUNCTION_NAMES)("projecting json-unwrapped samples: %s", (name) => {
    const facts = rangeFunction(name);
    if (facts.unwrap === "forbidden" || !facts.grouping) return;
    const q = rangeQuery(name, { unwrap: true, json: true, grouping: " by (app)" });
    const agg = parseUncached(q) as Extract<SampleExpr, { kind: "RangeAggregation" }>;
    expect(planUnwrapProjection(agg) !== undefined, q).toBe(facts.origin.projection);
  });

  it("every function the origin totals or aggregates is one whose per-series values merge", () => {
    for (const name of RANGE_FUNCTION_NAMES) {
      const facts = rangeFunction(name);
      if (facts.origin.lines) expect(facts.mergedBy, name).toBe("sum");
      if (facts.unwrap === "forbidden") expect(facts.origin.unwrapped, name).toBeUndefined();
    }
  });
});
