/**
 * The LogQL metric evaluator: evaluates a sample expression on Loki's step grid with Loki's
 * semantics, pulling samples of each range aggregation from a `SampleSource` (which may compute
 * whole subtrees itself through `pushdown`).
 */
import type { Grouping, RangeAggregationExpr, SampleExpr, VectorAggregationExpr } from "../../logql/ast";
import { isKind, some } from "../../logql/walk";
import { rangeFunction, vectorAggregation } from "../../logql/functions";
import type { ExtractedSample, Labels, MetricResult, Series, VectorSample } from "../types";
import { betweenVectors, foldLiterals, withScalar } from "./binary";
import { PointBudget } from "./budget";
import { DEFAULT_MAX_POINTS, DEFAULT_MAX_SERIES, MetricEvalError } from "./errors";
import { SeriesLimit, partialSeriesWarning } from "./series-limit";
import { type MetricQuery, type StepGrid, alignToStep, makeGrid, timeAt } from "./grid";
import { labelReplacer } from "./label-replace";
import { compareLabels, labelsKey } from "./labels";
import { type StepVectors, evaluateRangeAggregation, sampleSpan } from "./range/evaluate";
import { aggregateVector } from "./vector-aggregation";
import { extractionGrouping, parserHints, type ParserHints } from "../pipeline/parser-hints";

export {
  MetricEvalError,
  PipelineError,
  PointLimitError,
  QueryLimitError,
  DEFAULT_MAX_POINTS,
  DEFAULT_MAX_SERIES,
} from "./errors";
export { alignToStep } from "./grid";
export type { MetricQuery } from "./grid";
export { SeriesLimit, partialSeriesWarning } from "./series-limit";
export { absentLabels } from "./range/evaluate";

/** Times in nanoseconds; an instant query has start = end (step is ignored). */
export interface SampleSource {
  /**
   * Samples of one range aggregation's log range with ts in (from, to]; any order, in batches (the
   * rows of one network chunk) so that no sample costs an await of its own. `hints`: Loki's parser
   * hints for extracting them (every label when absent).
   */
  samples(
    expr: RangeAggregationExpr,
    from: bigint,
    to: bigint,
    hints?: ParserHints,
  ): AsyncIterable<readonly ExtractedSample[]>;
  /** Optional push-down: the origin may compute a whole subtree exactly; return undefined to decline. */
  pushdown?(expr: SampleExpr, q: MetricQuery): Promise<Series[] | undefined>;
}

export interface MetricOptions {
  /** Loki's `max_query_series`. */
  maxSeries?: number;
  /**
   * Past `maxSeries`, answer the series already held (exact) and leave out the rest, as Loki does
   * for Logs Drilldown, instead of the 400; the result then carries Loki's warning.
   */
  partialSeries?: boolean;
  /** How many points the evaluation may hold (see PointBudget; `MAX_METRIC_POINTS`). */
  maxPoints?: number;
}

/**
 * Range queries are first aligned to the step grid exactly as Loki's query frontend does (see
 * `alignToStep`), so callers may pass the request's raw start/end.
 */
export async function evaluateMetric(
  expr: SampleExpr,
  q: MetricQuery,
  source: SampleSource,
  options: MetricOptions = {},
): Promise<MetricResult> {
  const query = alignToStep(q);
  const grid = makeGrid(query);
  const limit = new SeriesLimit(options.maxSeries ?? DEFAULT_MAX_SERIES, options.partialSeries === true);

  const literal = literalValue(expr);
  if (literal !== undefined) {
    if (query.instant) return { type: "scalar", t: query.start, v: literal };
    const points = Array.from({ length: grid.count }, (_, k) => ({ t: timeAt(grid, k), v: literal }));
    return { type: "matrix", series: [{ labels: {}, points }] };
  }

  const budget = new PointBudget(options.maxPoints ?? DEFAULT_MAX_POINTS);
  const steps = await evaluateNode(expr, { grid, query, source, root: expr, limit, budget });
  let result: MetricResult;
  if (query.instant) {
    let samples = steps[0] ?? [];
    if (samples.length > limit.max && !limit.refuse()) samples = samples.slice(0, limit.max);
    // Loki orders an instant vector by labels unless the query sorts by value.
    const ordered = containsSort(expr) ? samples : [...samples].sort((a, b) => compareLabels(a.labels, b.labels));
    result = { type: "vector", t: query.start, samples: ordered };
  } else result = { type: "matrix", series: toMatrix(steps, grid, limit) };
  if (limit.reached) result.warnings = [partialSeriesWarning(limit.max)];
  return result;
}

interface Context {
  grid: StepGrid;
  query: MetricQuery;
  source: SampleSource;
  /** The whole query: a range aggregation whose series are its answer is held to `maxSeries`. */
  root: SampleExpr;
  limit: SeriesLimit;
  budget: PointBudget;
}

async function evaluateNode(expr: SampleExpr, ctx: Context): Promise<StepVectors> {
  const pushed = await tryPushdown(expr, ctx);
  if (pushed) return pushed;
  switch (expr.kind) {
    case "RangeAggregation":
      return evaluateRange(expr, ctx, undefined);
    case "VectorAggregation":
      return evaluateVectorAggregation(expr, ctx);
    case "BinaryOp":
      return evaluateBinary(expr, ctx);
    case "LabelReplace": {
      const replace = labelReplacer(expr);
      return (await evaluateNode(expr.expr, ctx)).map(replace);
    }
    case "Vector":
      return Array.from({ length: ctx.grid.count }, () => [{ labels: {}, v: expr.value }]);
    case "Literal":
      throw new MetricEvalError("a literal cannot be evaluated as a vector here", "bad-request");
  }
}

/**
 * `answer` is the expression whose series the aggregation's series are (the aggregation itself, or
 * the aggregation folded into it): when that is the whole query, the table is held to Loki's
 * `max_query_series` as it grows, as Loki holds the answer to it step by step.
 */
function evaluateRange(
  expr: RangeAggregationExpr,
  ctx: Context,
  outer: Grouping | undefined,
  answer: SampleExpr = expr,
  parent?: SampleExpr,
): Promise<StepVectors> {
  const { from, to } = sampleSpan(expr, ctx.grid);
  const limits = { series: answer === ctx.root ? ctx.limit : undefined, budget: ctx.budget };
  const hints = parserHints(expr, extractionGrouping(expr, parent));
  return evaluateRangeAggregation(expr, ctx.grid, ctx.source.samples(expr, from, to, hints), limits, outer);
}

/**
 * Whether `op by (…)` over `inner` equals `inner` evaluated over the samples grouped by `op`'s
 * grouping (and the inner grouping, if any): the table's `mergedBy` (sums of sums, the largest of
 * maxima, the smallest of minima, NaN-aware alike: a NaN is kept only when every value is NaN).
 * Folding holds only the answer's groups instead of every inner series, as Loki's memory holds
 * only one step.
 */
function foldsInto(op: VectorAggregationExpr["op"], inner: RangeAggregationExpr): boolean {
  return rangeFunction(inner.op).mergedBy === op;
}

async function evaluateVectorAggregation(expr: VectorAggregationExpr, ctx: Context): Promise<StepVectors> {
  if (vectorAggregation(expr.op).instantOnly && !ctx.query.instant) {
    // Loki's message: approx_topk's count-min sketches answer instant queries only.
    throw new MetricEvalError(
      `${expr.op} error: count min sketches are only supported on instant queries`,
      "bad-request",
    );
  }
  const inner = expr.expr;
  let steps: StepVectors;
  if (inner.kind === "RangeAggregation" && foldsInto(expr.op, inner)) {
    // Group samples before windowing (Loki does the same at its source): far fewer series.
    steps =
      (await tryPushdown(inner, ctx)) ??
      (await evaluateRange(inner, ctx, expr.grouping ?? { without: false, labels: [] }, expr, expr));
  } else if (inner.kind === "RangeAggregation") {
    // Loki extracts the samples with a `sum`'s grouping (its parser hints) even where it does not fold.
    steps = (await tryPushdown(inner, ctx)) ?? (await evaluateRange(inner, ctx, undefined, inner, expr));
  } else {
    steps = await evaluateNode(inner, ctx);
  }
  return steps.map((vec) => aggregateVector(expr, vec));
}

async function evaluateBinary(expr: Extract<SampleExpr, { kind: "BinaryOp" }>, ctx: Context): Promise<StepVectors> {
  const l = literalValue(expr.lhs);
  const r = literalValue(expr.rhs);
  if (l !== undefined && r !== undefined) {
    throw new MetricEvalError("a literal-only binary operation cannot be evaluated as a vector here", "bad-request");
  }
  if (l !== undefined) {
    return (await evaluateNode(expr.rhs, ctx)).map((vec) => withScalar(expr.op, expr.returnBool, l, vec, true));
  }
  if (r !== undefined) {
    return (await evaluateNode(expr.lhs, ctx)).map((vec) => withScalar(expr.op, expr.returnBool, r, vec, false));
  }
  const [lhs, rhs] = await Promise.all([evaluateNode(expr.lhs, ctx), evaluateNode(expr.rhs, ctx)]);
  return lhs.map((vec, k) => betweenVectors(expr.op, expr.returnBool, expr.matching, vec, rhs[k] ?? []));
}

/** The value of a literal-only expression (Loki folds these at parse time), else undefined. */
export function literalValue(expr: SampleExpr): number | undefined {
  if (expr.kind === "Literal") return expr.value;
  if (expr.kind !== "BinaryOp") return undefined;
  const l = literalValue(expr.lhs);
  if (l === undefined) return undefined;
  const r = literalValue(expr.rhs);
  if (r === undefined) return undefined;
  return foldLiterals(expr.op, l, r);
}

async function tryPushdown(expr: SampleExpr, ctx: Context): Promise<StepVectors | undefined> {
  if (!ctx.source.pushdown || expr.kind === "Literal" || expr.kind === "Vector") return undefined;
  const series = await ctx.source.pushdown(expr, ctx.query);
  return series ? seriesToSteps(series, ctx.grid) : undefined;
}

/** Points off the grid are ignored: a push-down must answer on Loki's grid to be used. */
function seriesToSteps(series: Series[], grid: StepGrid): StepVectors {
  const out: StepVectors = Array.from({ length: grid.count }, () => []);
  for (const s of series) {
    for (const p of s.points) {
      const rel = p.t - grid.start;
      if (rel < 0n || rel % grid.step !== 0n) continue;
      const k = Number(rel / grid.step);
      if (k < grid.count) out[k]!.push({ labels: s.labels, v: p.v });
    }
  }
  return out;
}

function toMatrix(steps: StepVectors, grid: StepGrid, limit: SeriesLimit): Series[] {
  const series = new Map<string, Series>();
  // A series' labels are mostly one object at every step (a push-down's series, a range
  // aggregation's table): its key, which sorts the names, is built once per object, not per point.
  const keys = new Map<Labels, string>();
  steps.forEach((vec: VectorSample[], k) => {
    const t = timeAt(grid, k);
    for (const s of vec) {
      let key = keys.get(s.labels);
      if (key === undefined) keys.set(s.labels, (key = labelsKey(s.labels)));
      let out = series.get(key);
      if (!out) {
        // A series past the limit: Loki's error, or (partial) left out of the answer whole.
        if (series.size >= limit.max && !limit.refuse()) continue;
        out = { labels: s.labels, points: [] };
        series.set(key, out);
      }
      out.points.push({ t, v: s.v });
    }
    // The step's samples are now points: let them go while the next steps are read.
    steps[k] = [];
  });
  return [...series.values()].sort((a, b) => compareLabels(a.labels, b.labels));
}

function containsSort(expr: SampleExpr): boolean {
  return some(expr, (node) => isKind(node, "VectorAggregation") && vectorAggregation(node.op).ordersByValue);
}
