/**
 * The rows a counting push-down's guard matches, read by the Worker instead of voiding the origin's
 * counts.
 *
 * A guard (parser-pushdown.ts, extract-pushdown.ts) matches every row VictoriaLogs might read
 * otherwise than Loki; the origin's counts leave those rows out. Loki's count of a window is a sum
 * over its rows, each adding one (or its line's bytes) to the series its labels make, so the rows
 * the guard matched can be counted apart, by the Worker from whole lines as it counts any row, and
 * added in: the answer is exact while only they cross the network. A rare odd line (an escaped
 * character, a repeated key) then costs its own row, not every row of the range.
 *
 * Counts add exactly (integers well below 2^53); a rate is the added count divided by the range's
 * seconds, as the origin's own answer is.
 */
import type {
  PipelineStage,
  RangeAggregationExpr,
  RangeAggregationOp,
  SampleExpr,
  VectorAggregationExpr,
} from "../logql/ast";

export interface GuardedRows {
  /** The guard's rows (LogsQL, no time filter), each with only the fields the row has stored. */
  logsql: string;
  /**
   * The pushed part as the Worker counts those rows: over the pipeline the origin leaves to it, and
   * with totals per window where the part has rates (the caller divides after adding).
   */
  expr: SampleExpr;
}

/**
 * Rows of a push-down read back to be counted by the Worker, chosen when the origin's answer says
 * which (a filter on the rows as they are grouped: the guard's flag, a group's values).
 */
export interface ReadBack {
  /** The rows as they are grouped: every field a filter may name computed. */
  rows: string;
  /** The pipes giving a row read back its stored fields only. */
  cleanup: string[];
  /** The part as the Worker counts the rows read back (GuardedRows.expr). */
  expr: SampleExpr;
}

/** The total each rate divides. */
const TOTALS: Partial<Record<RangeAggregationOp, RangeAggregationOp>> = {
  rate: "count_over_time",
  bytes_rate: "bytes_over_time",
};

/**
 * `part` (`sum [by (…)] (counting function (…))`, `inner` its range aggregation) counted over the
 * rows of `rows` (the push-down's LogsQL before it counts, with every field the guard reads) that
 * the guard `bad` matches; `local` is the pipeline the origin left to the Worker, and `cleanup` the
 * pipes that give each row back its stored fields only (the Worker would read added ones as labels).
 */
export function guardedRows(
  part: VectorAggregationExpr,
  inner: RangeAggregationExpr,
  local: readonly PipelineStage[],
  rows: string,
  bad: string,
  cleanup: readonly string[],
): GuardedRows {
  return { logsql: readBackQuery(rows, bad, cleanup), expr: countedPart(part, inner, local) };
}

/** The rows of `rows` that `filter` matches, given back their stored fields by `cleanup`. */
export function readBackQuery(rows: string, filter: string, cleanup: readonly string[]): string {
  return [rows, `filter ${filter}`, ...cleanup].join(" | ");
}

/** `part` as the Worker counts rows read back (GuardedRows.expr). */
export function countedPart(
  part: VectorAggregationExpr,
  inner: RangeAggregationExpr,
  local: readonly PipelineStage[],
): VectorAggregationExpr {
  return { ...part, expr: countedRange(inner, local) };
}

/** A counting range aggregation as the Worker counts rows read back: totals, over `local`. */
export function countedRange(range: RangeAggregationExpr, local: readonly PipelineStage[]): RangeAggregationExpr {
  return {
    ...range,
    op: TOTALS[range.op] ?? range.op,
    range: { ...range.range, selector: { ...range.range.selector, pipeline: [...local] } },
  };
}
