/**
 * The LogQL range functions and vector aggregations, and every fact about them that more than one
 * module needs: what the call takes, what Loki's parser accepts around it, what a log line
 * contributes, how per-series values combine, and what VictoriaLogs computes exactly.
 *
 * The lexer, the builder, validation, the printer, the engine's implementation maps, the sample
 * extractor and the push-down planners all read these two tables instead of keeping lists of their
 * own, and the names used across the code are derived from them: a function added here is a type
 * error wherever it still lacks an implementation, and a unit test checks that the grammar's
 * alternatives name exactly these functions.
 */

/** How the argument before the expression is written, and how Loki reads it. */
export type FunctionParam =
  /** No argument: Loki refuses one. */
  | "none"
  /** A float (quantile's φ), read with Go's ParseFloat. */
  | "float"
  /** A count (topk's k), read with strconv.Atoi and refused unless it is at least 1. */
  | "count";

/** What one log line contributes to a range function. */
export type LineValue =
  /** 1: the function counts lines, or reads the unwrapped value when an unwrap is written. */
  | "lines"
  /** The line's size in UTF-8 bytes. */
  | "bytes"
  /** The unwrapped label's value (the function needs an unwrap). */
  | "unwrapped";

/** The vector aggregations that combine per-series values into one (see `mergedBy`). */
export type MergingAggregation = "sum" | "min" | "max";

/**
 * What one time bucket of unwrapped values gives the Worker (see `origin.unwrapped`): a VictoriaLogs
 * stats function of them (`rate` is their sum, per second of the range once windows add buckets
 * up), or, for the functions of BUCKET_VALUES, the values themselves.
 */
export type UnwrapStat =
  | "sum"
  | "min"
  | "max"
  | "avg"
  | "rate"
  | "quantile"
  | "stdvar"
  | "stddev"
  /** The earliest (latest) sample's value, with what tells whether samples tied at its time agree. */
  | "first"
  | "last";

/** The unwrap aggregations whose buckets send their values, not an aggregate of them. */
export const BUCKET_VALUES: ReadonlySet<UnwrapStat> = new Set(["quantile", "stdvar", "stddev"]);

export interface RangeFunctionFacts {
  param: Extract<FunctionParam, "none" | "float">;
  /** Whether `| unwrap` must, may or must not be written (Loki's "invalid aggregation … with(out) unwrap"). */
  unwrap: "required" | "allowed" | "forbidden";
  /**
   * Whether `by (…)` / `without (…)` may follow the call (Loki's "grouping not allowed for …"); a
   * range aggregation's grouping is written after the call only.
   */
  grouping: boolean;
  reads: LineValue;
  /**
   * The vector aggregation that turns the function's values over several series into its value
   * over the union of their samples (a sum of counts is the count of the union), so an enclosing
   * aggregation of that kind may group the samples before the windows are made.
   */
  mergedBy?: MergingAggregation;
  /** What VictoriaLogs computes exactly, so that the push-down planners may ask it to. */
  origin: {
    /**
     * Without unwrap: the window's value is the total of its time buckets' line counts or byte
     * sizes, divided by the window's seconds when `perSecond`.
     */
    lines?: { total: "count" | "bytes"; perSecond: boolean };
    /** Over `| json | unwrap f` values of an exact shape: the stats function one bucket needs. */
    unwrapped?: UnwrapStat;
    /**
     * Whether samples the origin projects (one small row per sample, in whatever order it sends
     * them) give Loki's answer. False where values at the same nanosecond are taken in arrival order.
     */
    projection: boolean;
  };
}

export interface VectorAggregationFacts {
  param: Extract<FunctionParam, "none" | "count">;
  /**
   * `allowed` (before or after the call); `forbidden` (Loki's construction error "grouping not
   * allowed for …"); or `no-labels` (Loki's validation refuses grouping labels: "sort and sort_desc
   * doesn't allow grouping by ").
   */
  grouping: "allowed" | "forbidden" | "no-labels";
  /** `groups`: one sample per group; `series`: the input series, labels untouched, ranked. */
  result: "groups" | "series";
  /** An instant answer keeps this aggregation's order instead of being ordered by labels. */
  ordersByValue: boolean;
  /** Loki evaluates it for instant queries only. */
  instantOnly: boolean;
}

export const RANGE_FUNCTIONS = {
  count_over_time: {
    param: "none",
    unwrap: "forbidden",
    grouping: false,
    reads: "lines",
    mergedBy: "sum",
    origin: { lines: { total: "count", perSecond: false }, projection: true },
  },
  rate: {
    param: "none",
    unwrap: "allowed",
    grouping: false,
    reads: "lines",
    mergedBy: "sum",
    // With an unwrap, Loki's rate is the sum of the window's values per second of its range.
    origin: { lines: { total: "count", perSecond: true }, unwrapped: "rate", projection: true },
  },
  rate_counter: {
    param: "none",
    unwrap: "required",
    grouping: false,
    reads: "unwrapped",
    // Counter resets between points at the same nanosecond depend on their order.
    origin: { projection: false },
  },
  bytes_over_time: {
    param: "none",
    unwrap: "forbidden",
    grouping: false,
    reads: "bytes",
    mergedBy: "sum",
    origin: { lines: { total: "bytes", perSecond: false }, projection: true },
  },
  bytes_rate: {
    param: "none",
    unwrap: "forbidden",
    grouping: false,
    reads: "bytes",
    mergedBy: "sum",
    origin: { lines: { total: "bytes", perSecond: true }, projection: true },
  },
  avg_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    origin: { unwrapped: "avg", projection: true },
  },
  sum_over_time: {
    param: "none",
    unwrap: "required",
    grouping: false,
    reads: "unwrapped",
    mergedBy: "sum",
    origin: { unwrapped: "sum", projection: true },
  },
  min_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    mergedBy: "min",
    origin: { unwrapped: "min", projection: true },
  },
  max_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    mergedBy: "max",
    origin: { unwrapped: "max", projection: true },
  },
  stdvar_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    origin: { unwrapped: "stdvar", projection: true },
  },
  stddev_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    origin: { unwrapped: "stddev", projection: true },
  },
  quantile_over_time: {
    param: "float",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    origin: { unwrapped: "quantile", projection: true },
  },
  first_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    origin: { unwrapped: "first", projection: false },
  },
  last_over_time: {
    param: "none",
    unwrap: "required",
    grouping: true,
    reads: "unwrapped",
    origin: { unwrapped: "last", projection: false },
  },
  absent_over_time: {
    param: "none",
    unwrap: "allowed",
    grouping: false,
    reads: "lines",
    origin: { projection: true },
  },
} as const satisfies Record<string, RangeFunctionFacts>;

export const VECTOR_AGGREGATIONS = {
  sum: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  avg: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  count: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  max: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  min: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  stddev: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  stdvar: { param: "none", grouping: "allowed", result: "groups", ordersByValue: false, instantOnly: false },
  topk: { param: "count", grouping: "allowed", result: "series", ordersByValue: false, instantOnly: false },
  bottomk: { param: "count", grouping: "allowed", result: "series", ordersByValue: false, instantOnly: false },
  approx_topk: { param: "count", grouping: "forbidden", result: "series", ordersByValue: false, instantOnly: true },
  sort: { param: "none", grouping: "no-labels", result: "series", ordersByValue: true, instantOnly: false },
  sort_desc: { param: "none", grouping: "no-labels", result: "series", ordersByValue: true, instantOnly: false },
} as const satisfies Record<string, VectorAggregationFacts>;

export type RangeFunctionName = keyof typeof RANGE_FUNCTIONS;
export type VectorAggregationName = keyof typeof VECTOR_AGGREGATIONS;

export const RANGE_FUNCTION_NAMES = Object.keys(RANGE_FUNCTIONS) as RangeFunctionName[];
export const VECTOR_AGGREGATION_NAMES = Object.keys(VECTOR_AGGREGATIONS) as VectorAggregationName[];

/** The facts of one range function, widened so that optional ones read as possibly absent. */
export function rangeFunction(name: RangeFunctionName): RangeFunctionFacts {
  return RANGE_FUNCTIONS[name];
}

export function vectorAggregation(name: VectorAggregationName): VectorAggregationFacts {
  return VECTOR_AGGREGATIONS[name];
}
