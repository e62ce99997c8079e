/**
 * The rows an unwrap push-down's guard matches (plan/unwrap-pushdown.ts), aggregated by the Worker
 * and merged with the origin's aggregate of the others, where the merge is exact.
 *
 * Each of these answers is, per output series and window, a fold of the window's samples that two
 * partial folds give as well: a sum (`sum by (…) (sum_over_time)`, and `sum by (…) (rate)`, which
 * is the window's sum divided by the range's seconds: the partial sums are added before it
 * divides), an extreme (`min|max_over_time(…) by (…)`, `min by (…) (min_over_time)`, `max by (…)
 * (max_over_time)`: the extreme of both), or a sum and a count (`avg_over_time(…) by (…)`: the
 * origin's average already is its sum over its count, so the merged one is the sum of both sums
 * over the sum of both counts; Loki folds a running mean instead, which differs from it by float
 * rounding only, as the origin's answer always has). The guard's rows are read with their stored
 * fields only and the Worker evaluates them as it evaluates any row, Loki's errors included.
 *
 * A quantile, a variance, a first or a last needs the values themselves or their order: their
 * guard rows still void the origin's answer.
 */
import type {
  PipelineStage,
  RangeAggregationExpr,
  RangeAggregationOp,
  VectorAggregationExpr,
  VectorAggregationOp,
} from "../logql/ast";
import type { UnwrapStat } from "../logql/functions";
import { readBackQuery, type GuardedRows } from "./guarded-rows";

/** The unwrap functions whose guard rows merge, and how the Worker folds those rows. */
const MERGED: Partial<Record<UnwrapStat, { outer: VectorAggregationOp; op: RangeAggregationOp }>> = {
  sum: { outer: "sum", op: "sum_over_time" },
  rate: { outer: "sum", op: "sum_over_time" },
  avg: { outer: "sum", op: "sum_over_time" },
  min: { outer: "min", op: "min_over_time" },
  max: { outer: "max", op: "max_over_time" },
};

export type MergedStat = "sum" | "rate" | "avg" | "min" | "max";

export function mergesGuardRows(fn: UnwrapStat): fn is MergedStat {
  return MERGED[fn] !== undefined;
}

/** The guard's rows of an unwrap push-down, and what the Worker computes of them. */
export interface GuardedSamples extends GuardedRows {
  fn: MergedStat;
  /** For an average, the samples' count per series and window (`expr` holds their sum). */
  counts?: VectorAggregationExpr;
}

/**
 * The guard's rows of `inner` (an unwrapped range aggregation) grouped by `groupBy` (Loki's label
 * names): `rows` is the push-down's LogsQL before it aggregates, with every field `bad` reads,
 * `cleanup` the pipes giving each row back its stored fields only, and `local` the pipeline the
 * Worker runs over them.
 */
export function guardedSamples(
  fn: MergedStat,
  inner: RangeAggregationExpr,
  groupBy: readonly string[],
  local: readonly PipelineStage[],
  rows: string,
  bad: string,
  cleanup: readonly string[],
): GuardedSamples {
  const range = { ...inner.range, selector: { ...inner.range.selector, pipeline: [...local] } };
  const folded = (outer: VectorAggregationOp, op: RangeAggregationOp): VectorAggregationExpr => ({
    kind: "VectorAggregation",
    op: outer,
    grouping: { without: false, labels: [...groupBy] },
    expr: { kind: "RangeAggregation", op, range },
  });
  const { outer, op } = MERGED[fn]!;
  return {
    logsql: readBackQuery(rows, bad, cleanup),
    expr: folded(outer, op),
    fn,
    ...(fn === "avg" && { counts: folded("sum", "count_over_time") }),
  };
}
