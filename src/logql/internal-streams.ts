/**
 * Loki's internal streams: the aggregated metrics and patterns its pattern ingester writes, which
 * only Logs Drilldown may read. Loki answers a query from any other client whose selector names
 * `__aggregated_metric__` or `__pattern__` as if no stream matched (its querier returns an empty
 * iterator for it, not an error), whatever the other matchers.
 */
import type { Expr, LogSelectorExpr, SampleExpr } from "./ast";
import { isKind, some } from "./walk";

const INTERNAL_LABELS = ["__aggregated_metric__", "__pattern__"];

function namesInternalStream(selector: LogSelectorExpr): boolean {
  return selector.matchers.some((m) => INTERNAL_LABELS.includes(m.name));
}

/**
 * A selector that matches no stream: the label it names both non-empty and empty. The matchers are
 * regular expressions, so the labels an absent_over_time answer carries (its equality matchers) stay.
 */
function matchingNothing(selector: LogSelectorExpr): LogSelectorExpr {
  const name = selector.matchers.find((m) => INTERNAL_LABELS.includes(m.name))!.name;
  return {
    ...selector,
    matchers: [...selector.matchers, { name, op: "=~", value: ".+" }, { name, op: "!~", value: ".+" }],
  };
}

/** The expression with every selector of an internal stream matching nothing, as Loki reads it for other clients. */
export function withoutInternalStreams<E extends Expr>(expr: E): E {
  return namesAny(expr) ? (rewrite(expr) as E) : expr;
}

function namesAny(expr: Expr): boolean {
  return some(expr, (node) => isKind(node, "LogSelector") && namesInternalStream(node));
}

/** A new tree, so it keeps its own recursion (the walk only reads). */
function rewrite(expr: Expr): Expr {
  switch (expr.kind) {
    case "LogSelector":
      return namesInternalStream(expr) ? matchingNothing(expr) : expr;
    case "RangeAggregation": {
      const selector = expr.range.selector;
      if (!namesInternalStream(selector)) return expr;
      return { ...expr, range: { ...expr.range, selector: matchingNothing(selector) } };
    }
    case "VectorAggregation":
    case "LabelReplace":
      return { ...expr, expr: rewrite(expr.expr) as SampleExpr };
    case "BinaryOp":
      return { ...expr, lhs: rewrite(expr.lhs) as SampleExpr, rhs: rewrite(expr.rhs) as SampleExpr };
    case "Literal":
    case "Vector":
      return expr;
  }
}
