/**
 * How the engine computes each range function of RANGE_FUNCTIONS (src/logql/functions.ts): the
 * map is keyed by the table's names, so a function without an implementation fails the type check.
 *
 * Three strategies (evaluate.ts runs them): most functions fold samples one at a time into a
 * per-window accumulator; quantile_over_time and rate_counter need every point of a window and
 * slide over them in time order; absent_over_time only needs to know which windows saw a sample.
 */
import type { RangeAggregationExpr } from "../../../logql/ast";
import type { RangeFunctionName } from "../../../logql/functions";
import type { FoldKind, WindowAcc } from "./accumulators";
import { CounterWindows, QuantileWindows, type SlidingWindow } from "./sliding";

export type RangeImplementation =
  | {
      kind: "fold";
      /** The accumulator, by whether the samples are unwrapped values or one per line. */
      fold: (unwrapped: boolean) => FoldKind;
      /** The window's value once every sample is folded in. */
      finish: (acc: WindowAcc, kind: FoldKind, rangeSeconds: number) => number;
    }
  | {
      kind: "points";
      window: (
        expr: RangeAggregationExpr,
        ts: readonly bigint[],
        vs: readonly number[],
        range: bigint,
      ) => SlidingWindow;
    }
  | { kind: "absent" };

const VALUE = (acc: WindowAcc): number => acc.x;

export const RANGE_IMPLEMENTATIONS = {
  count_over_time: { kind: "fold", fold: () => "count", finish: (acc) => acc.n },
  rate: {
    kind: "fold",
    // Without unwrap a rate counts lines; with unwrap it sums the values (not a counter rate).
    fold: (unwrapped) => (unwrapped ? "sum" : "count"),
    finish: (acc, kind, rangeSeconds) => (kind === "count" ? acc.n : acc.x) / rangeSeconds,
  },
  rate_counter: { kind: "points", window: (_expr, ts, vs, range) => new CounterWindows(ts, vs, range) },
  bytes_over_time: { kind: "fold", fold: () => "sum", finish: VALUE },
  bytes_rate: { kind: "fold", fold: () => "sum", finish: (acc, _kind, rangeSeconds) => acc.x / rangeSeconds },
  avg_over_time: { kind: "fold", fold: () => "mean", finish: VALUE },
  sum_over_time: { kind: "fold", fold: () => "sum", finish: VALUE },
  min_over_time: { kind: "fold", fold: () => "min", finish: VALUE },
  max_over_time: { kind: "fold", fold: () => "max", finish: VALUE },
  stdvar_over_time: { kind: "fold", fold: () => "variance", finish: (acc) => acc.m2 / acc.n },
  stddev_over_time: { kind: "fold", fold: () => "variance", finish: (acc) => Math.sqrt(acc.m2 / acc.n) },
  quantile_over_time: { kind: "points", window: (expr, _ts, vs) => new QuantileWindows(expr.param ?? NaN, vs) },
  first_over_time: { kind: "fold", fold: () => "first", finish: VALUE },
  last_over_time: { kind: "fold", fold: () => "last", finish: VALUE },
  absent_over_time: { kind: "absent" },
} as const satisfies Record<RangeFunctionName, RangeImplementation>;
