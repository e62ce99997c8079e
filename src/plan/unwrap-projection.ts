/**
 * Projection for unwrap aggregations the Worker evaluates itself (`stddev_over_time`,
 * `stdvar_over_time`, quantiles and the others, where push-down declines: more buckets than it
 * holds, a bucket with more values than it sends) grouped
 * by stream labels over `| json | unwrap f`: instead of whole lines, which the Worker would parse as
 * JSON one by one, the origin returns one small row per sample — `_time`, the grouping labels and
 * the value it extracted — and the Worker aggregates those.
 *
 * That is exact under the same guard as push-down (src/plan/unwrap-pushdown.ts): when no row of the
 * window is one Loki might read differently, the value VictoriaLogs extracts is the text Loki's json
 * parser yields, of a shape both read as the same number (or, under `unwrap duration(f)` or
 * `bytes(f)`, of the conversion's shape, plan/unwrap-units.ts, which the Worker converts as local
 * evaluation does), and the grouping labels are the stream's.
 * The guard runs as a second request over the same window (`limit 1`: one such row is enough); if
 * it finds one, the query is evaluated again from whole lines. Grouped by a label the rows hold
 * only in their lines (`by (path)` over the JSON's `path`), every row is one: when no selected
 * stream has a grouped label, the lines are read at once instead (exec/unwrap-projection.ts).
 *
 * `first_over_time` and `last_over_time` are left out (`origin.projection` in RANGE_FUNCTIONS):
 * between samples of one series at the same nanosecond their answer depends on the order rows
 * arrive in, and a different request could change it (their push-down checks such samples agree).
 */
import type { Matcher, RangeAggregationExpr, UnwrapConversion } from "../logql/ast";
import { rangeFunction } from "../logql/functions";
import type { DerivedFieldRules } from "../engine/derived-fields";
import { fieldName } from "./logsql";
import { jsonUnwrapSource } from "./unwrap-pushdown";

export interface UnwrapProjection {
  /** LogsQL yielding one row per sample: `_time`, the grouping labels and `valueField`. */
  rows: string;
  /** LogsQL yielding a row when some row of the window could read differently in Loki. */
  guard: string;
  valueField: string;
  groupBy: readonly string[];
  /** The selector's matchers: whether a selected stream has each grouped label (exec/unwrap-projection.ts). */
  streams: Matcher[];
  /** The unwrap's conversion: values are of its shape (plan/unwrap-units.ts), converted as Loki does. */
  conversion?: UnwrapConversion;
}

export function planUnwrapProjection(
  agg: RangeAggregationExpr,
  derived?: DerivedFieldRules,
): UnwrapProjection | undefined {
  if (!agg.grouping || agg.grouping.without || !rangeFunction(agg.op).origin.projection) return undefined;
  const source = jsonUnwrapSource(agg, agg.grouping.labels, derived);
  if (!source) return undefined;
  const { logsql, unpack, guardPipes, parsed, bad, groupBy } = source;
  // Rows without the value give Loki no sample (an empty label is not unwrapped); rows with a value
  // of another shape are the guard's.
  //
  // VictoriaLogs (v1.121) reads only the fields later pipes name, and `unpack_json … fields (f)
  // result_prefix` does not name its source field when only prefixed outputs are asked for: `_msg`
  // must be kept explicitly until after the unpack (the guard names `_msg` itself).
  const kept = ["_time", ...groupBy.map(fieldName), "_msg"].join(", ");
  return {
    rows: `${logsql} | fields ${kept} | ${unpack} | filter ${parsed}:* | delete _msg`,
    guard: `${logsql} | ${unpack}${guardPipes} | filter ${bad} | limit 1 | fields _time`,
    valueField: parsed,
    groupBy,
    streams: agg.range.selector.matchers,
    conversion: agg.range.unwrap!.conversion,
  };
}
