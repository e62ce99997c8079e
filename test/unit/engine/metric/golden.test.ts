/**
 * Golden check against real Loki: every range-* / inst-* case of test/fixtures/compat is parsed,
 * evaluated from the dataset and compared value for value (relative 1e-6, NaN equal NaN, same
 * series, same timestamps). Samples are computed here for line-filter-only pipelines and through
 * the pipeline's `compileSampleExtractor` otherwise. A case that cannot be parsed or extracted is a
 * failure, never a skip.
 */
import { describe, expect, it } from "vitest";
import { evaluateMetric, type MetricQuery, type SampleSource } from "../../../../src/engine/metric";
import { compileGoRegex } from "../../../../src/logql/regex";
import type { LineFilterStage, RangeAggregationExpr, SampleExpr } from "../../../../src/logql/ast";
import type { ExtractedSample, Labels, LogRow, MetricResult } from "../../../../src/engine/types";
import { type CompatCase, type DatasetStream, loadCases, loadDataset, loadGolden } from "./support/compat";
import { parseExpr } from "../../../../src/logql/parser";
import { compileSampleExtractor } from "../../../../src/engine/pipeline";

const NS = 1_000_000_000n;

/** Samples of a range aggregation, read by the pipeline's extractor as the Worker reads them. */
function pipelineExtractor(expr: RangeAggregationExpr): (row: LogRow) => ExtractedSample | undefined {
  const extractor = compileSampleExtractor(expr.range, expr.op);
  return (row) => extractor.process(row) ?? undefined;
}

function parseTime(v: string): bigint {
  if (v.includes(".")) return BigInt(Math.round(Number(v) * 1000)) * 1_000_000n;
  if (/^\d{1,10}$/.test(v)) return BigInt(v) * NS;
  return BigInt(v);
}

function parseStep(v: string | undefined, start: bigint, end: bigint): bigint {
  if (!v) {
    const seconds = (end - start) / NS / 250n;
    return (seconds > 1n ? seconds : 1n) * NS;
  }
  if (/^[\d.]+$/.test(v)) return BigInt(Math.round(Number(v) * 1e9));
  const m = /^(\d+)([smh])$/.exec(v);
  if (!m) throw new Error(`step ${v}`);
  return BigInt(m[1]!) * { s: 1n, m: 60n, h: 3600n }[m[2] as "s" | "m" | "h"] * NS;
}

function queryOf(c: CompatCase): MetricQuery {
  const p = c.params as Record<string, string>;
  if (c.path.endsWith("/query")) {
    const t = parseTime(p.time!);
    return { start: t, end: t, step: 0n, instant: true };
  }
  const start = parseTime(p.start!);
  const end = parseTime(p.end!);
  return { start, end, step: parseStep(p.step, start, end), instant: false };
}

function streamMatches(stream: DatasetStream, expr: RangeAggregationExpr): boolean {
  return expr.range.selector.matchers.every((m) => {
    const v = stream.labels[m.name] ?? "";
    if (m.op === "=") return v === m.value;
    if (m.op === "!=") return v !== m.value;
    const re = compileGoRegex(m.value, { anchored: true });
    return m.op === "=~" ? re.test(v) : !re.test(v);
  });
}

/** Samples for a range aggregation whose pipeline only has string line filters; else undefined. */
function lineFilterExtractor(expr: RangeAggregationExpr) {
  if (expr.range.unwrap) return undefined;
  const stages = expr.range.selector.pipeline;
  if (!stages.every((s) => s.kind === "LineFilter" && s.values.every((v) => v.type === "string"))) return undefined;
  const tests = (stages as LineFilterStage[]).map((s) => {
    const values = s.values.map((v) => (v as { value: string }).value);
    switch (s.op) {
      case "|=":
        return (line: string) => values.some((v) => line.includes(v));
      case "!=":
        return (line: string) => !values.some((v) => line.includes(v));
      case "|~": {
        const res = values.map((v) => compileGoRegex(v));
        return (line: string) => res.some((re) => re.test(line));
      }
      case "!~": {
        const res = values.map((v) => compileGoRegex(v));
        return (line: string) => !res.some((re) => re.test(line));
      }
      default:
        return undefined;
    }
  });
  if (tests.some((t) => !t)) return undefined;
  const bytes = expr.op === "bytes_over_time" || expr.op === "bytes_rate";
  const encoder = new TextEncoder();
  return (row: LogRow): ExtractedSample | undefined => {
    if (!tests.every((t) => t!(row.line))) return undefined;
    const labels: Labels = { ...row.stream, ...row.metadata };
    return { ts: row.ts, value: bytes ? encoder.encode(row.line).length : 1, labels };
  };
}

function rangeAggregations(expr: SampleExpr): RangeAggregationExpr[] {
  switch (expr.kind) {
    case "RangeAggregation":
      return [expr];
    case "VectorAggregation":
    case "LabelReplace":
      return rangeAggregations(expr.expr);
    case "BinaryOp":
      return [...rangeAggregations(expr.lhs), ...rangeAggregations(expr.rhs)];
    default:
      return [];
  }
}

function datasetSource(extract: (e: RangeAggregationExpr) => ReturnType<typeof lineFilterExtractor>): SampleSource {
  const streams = loadDataset();
  return {
    async *samples(expr, from, to) {
      const fn = extract(expr)!;
      for (const stream of streams) {
        if (!streamMatches(stream, expr)) continue;
        for (const row of stream.rows) {
          if (row.ts <= from || row.ts > to) continue;
          const s = fn(row);
          if (s) yield [s];
        }
      }
    },
  };
}

const close = (a: number, b: number) =>
  (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));

const goldenValue = (s: string) => (s === "+Inf" ? Infinity : s === "-Inf" ? -Infinity : Number(s));
const key = (l: Labels) => JSON.stringify(Object.entries(l).sort());

/** Differences between our result and Loki's answer, as readable strings (empty when equal). */
function diff(ours: MetricResult, golden: { resultType: string; result: unknown }): string[] {
  if (ours.type !== golden.resultType) return [`type ${ours.type} vs ${golden.resultType}`];
  if (ours.type === "scalar") {
    const [t, v] = golden.result as [number, string];
    const problems = [];
    // Loki's query frontend reports a scalar's time in milliseconds.
    if (Number(ours.t / 1_000_000n) !== t) problems.push(`t ${ours.t} vs ${t}`);
    if (!close(ours.v, goldenValue(v))) problems.push(`v ${ours.v} vs ${v}`);
    return problems;
  }
  const expected = new Map<string, Array<[number, string]>>();
  if (golden.resultType === "matrix") {
    for (const s of golden.result as Array<{ metric: Labels; values: Array<[number, string]> }>)
      expected.set(key(s.metric), s.values);
  } else {
    for (const s of golden.result as Array<{ metric: Labels; value: [number, string] }>)
      expected.set(key(s.metric), [s.value]);
  }
  const actual = new Map<string, Array<[number, number]>>();
  if (ours.type === "matrix") {
    for (const s of ours.series)
      actual.set(
        key(s.labels),
        s.points.map((p) => [Number(p.t) / 1e9, p.v]),
      );
  } else {
    for (const s of ours.samples) actual.set(key(s.labels), [[Number(ours.t) / 1e9, s.v]]);
  }
  const problems: string[] = [];
  for (const k of expected.keys()) if (!actual.has(k)) problems.push(`missing series ${k}`);
  for (const k of actual.keys()) if (!expected.has(k)) problems.push(`extra series ${k}`);
  for (const [k, want] of expected) {
    const got = actual.get(k);
    if (!got) continue;
    if (got.length !== want.length) problems.push(`${k}: ${got.length} points vs ${want.length}`);
    const n = Math.min(got.length, want.length);
    for (let i = 0; i < n; i++) {
      const [gt, gv] = got[i]!;
      const [wt, wv] = want[i]!;
      if (Math.abs(gt - wt) > 1e-6 || !close(gv, goldenValue(wv))) {
        problems.push(`${k} @${wt}: ours [${gt}, ${gv}] vs Loki's ${wv}`);
        break;
      }
    }
  }
  return problems;
}

const metricCases = loadCases().filter(
  (c) => /^(range|inst)-|^err-(4|11)$/.test(c.id) && loadGolden(c.id).status === 200,
);

describe("metric evaluator against Loki's golden answers", () => {
  it("matches every case", async () => {
    const matched: string[] = [];
    const failures: Record<string, string[]> = {};
    for (const c of metricCases) {
      const text = (c.params as Record<string, string>).query!;
      let expr: SampleExpr;
      let extract: (e: RangeAggregationExpr) => (row: LogRow) => ExtractedSample | undefined;
      try {
        expr = parseExpr(text) as SampleExpr;
        extract = (e) => lineFilterExtractor(e) ?? pipelineExtractor(e);
        rangeAggregations(expr).forEach(extract);
      } catch (e) {
        failures[c.id] = [`parse: ${(e as Error).message}`];
        continue;
      }
      const golden = loadGolden(c.id).json!.data;
      try {
        const ours = await evaluateMetric(expr, queryOf(c), datasetSource(extract));
        const problems = diff(ours, golden);
        if (problems.length === 0) matched.push(c.id);
        else failures[c.id] = problems.slice(0, 5);
      } catch (e) {
        failures[c.id] = [`threw: ${(e as Error).message}`];
      }
    }
    console.log(
      `metric golden: ${matched.length} matched, ${Object.keys(failures).length} failed of ${metricCases.length}`,
    );
    expect(failures).toEqual({});
    expect(matched.length).toBe(metricCases.length);
  });
});
