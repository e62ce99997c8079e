/**
 * The unwrap push-down (plan/unwrap-pushdown.ts) over `| regexp "…"` and `| pattern "…"`: the
 * nginx panels' `sum by (method) (sum_over_time({app="nginx"} | pattern "… <size> …" | unwrap size
 * [5m]))`. The extraction push-down (plan/extract-pushdown.ts) computes Loki's value of the
 * unwrapped label, the grouped ones and those the filters read, and its guard; the value is a
 * sample where both sides read it alike (EXACT_NUMBER, or a conversion's shape), and any other
 * non-empty value is a guard row. Loki skips a sample whose label is unset or "" (its extractor
 * reads an empty value as no sample, not as an error), as the origin counts none where the field is
 * empty: no "set or not" test is needed for the unwrapped label. A grouped capture Loki may set to
 * "" is grouped under its own value (ExtractedCounting's `setEmpty`). `| __error__=""` after the
 * unwrap only removes guarded rows. Grouping by the unwrapped label itself stays local, as for
 * `| json`.
 */
import type { RangeAggregationExpr } from "../logql/ast";
import { rangeFunction } from "../logql/functions";
import { extractedCounting, SET_EMPTY } from "./extract-pushdown";
import { planLogQuery } from "./logquery";
import { valueShape } from "./unwrap-units";
import {
  EXACT_NUMBER,
  EXACT_VALUE,
  exactValuePipe,
  inexactValue,
  isNoErrorFilter,
  type ExtractedUnwrapSource,
  type JsonUnwrapSource,
} from "./unwrap-pushdown";
import type { DerivedFieldRules } from "../engine/derived-fields";
import { parsedValueField, pushableName } from "./parser-pushdown";

export const extractedUnwrapSource: ExtractedUnwrapSource = (
  inner: RangeAggregationExpr,
  groupBy: string[],
  derived?: DerivedFieldRules,
): JsonUnwrapSource | undefined => {
  const unwrap = inner.range.unwrap;
  if (!unwrap || !unwrap.postFilters.every(isNoErrorFilter)) return undefined;
  const field = unwrap.label;
  if (groupBy.includes(field)) return undefined;
  // Label filters must not become the origin's prefilters: the guard must see every row.
  const plan = planLogQuery(inner.range.selector, { derived, prefilter: false });
  const counting = extractedCounting(plan.local, groupBy, pushableName(derived), [field]);
  if (!counting) return undefined;
  // The guard's rows, read back restoring the fields the extraction overwrote (extract-pushdown.ts).
  const restoring = extractedCounting(plan.local, groupBy, pushableName(derived), [field], true)!;
  const value = parsedValueField(field);
  const shape = valueShape(unwrap.conversion, EXACT_NUMBER, rangeFunction(inner.op).origin.unwrapped);
  const bad = `${counting.bad} or ${inexactValue(value)}`;
  const guardPipes = exactValuePipe(value, shape);
  return {
    logsql: plan.logsql,
    unpack: counting.pipes.join(" | "),
    guardPipes,
    parsed: value,
    bad,
    valueBad: bad,
    labelBad: "",
    kept: counting.counted,
    field,
    groupBy,
    groupFields: counting.grouped,
    ...(counting.setEmpty && { setEmpty: SET_EMPTY }),
    local: plan.local,
    back: {
      pipes: `${restoring.pipes.join(" | ")}${guardPipes}`,
      cleanup: [...restoring.restored, `delete ${[...restoring.added, EXACT_VALUE].join(", ")}`],
    },
  };
};
