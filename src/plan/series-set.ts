/**
 * Rewrites of a metric query into a form with the same answer that is cheaper to compute.
 *
 * `count` reads only which series its operand has and their labels, never their values. A vector
 * aggregation that makes one series per group (sum, avg, count, max, min, stddev, stdvar: every
 * one whose `result` is "groups") has the same series with the same labels whatever its operation,
 * so under `count` that operation may be `sum`. The case it is for: `count(count by (pod) (…))`,
 * how dashboards count active pods or services. Its inner `count by` needs every series of the
 * range aggregation (one per row where rows carry a trace id as structured metadata), while
 * `sum by (pod)` is a count per pod and bucket that VictoriaLogs adds up (plan/metric-pushdown.ts).
 */
import type { SampleExpr, VectorAggregationExpr } from "../logql/ast";
import { vectorAggregation } from "../logql/functions";

/** `expr`, with each aggregation directly under a `count` that makes one series per group a `sum`. */
export function cheaperEquivalent(expr: SampleExpr): SampleExpr {
  switch (expr.kind) {
    case "VectorAggregation": {
      let operand = cheaperEquivalent(expr.expr);
      if (expr.op === "count" && operand.kind === "VectorAggregation") operand = asSum(operand);
      return operand === expr.expr ? expr : { ...expr, expr: operand };
    }
    case "BinaryOp": {
      const lhs = cheaperEquivalent(expr.lhs);
      const rhs = cheaperEquivalent(expr.rhs);
      return lhs === expr.lhs && rhs === expr.rhs ? expr : { ...expr, lhs, rhs };
    }
    case "LabelReplace": {
      const operand = cheaperEquivalent(expr.expr);
      return operand === expr.expr ? expr : { ...expr, expr: operand };
    }
    default:
      return expr;
  }
}

/** A group-per-series aggregation as `sum` with the same grouping; any other unchanged. */
function asSum(agg: VectorAggregationExpr): VectorAggregationExpr {
  if (agg.op === "sum" || vectorAggregation(agg.op).result !== "groups") return agg;
  return { ...agg, op: "sum" };
}
