/**
 * The subtree of a metric query whose groups are the answer's series one to one: a partial answer
 * (Logs Drilldown past `max_query_series`) may then be computed from some of that subtree's groups
 * only (exec/breakdown-groups.ts), and every series it holds is whole.
 *
 * Loki counts the series of the answer itself (its engine's sample-vector join, then its query-range
 * limiter): an outer operation that gives each group exactly one series keeps that count. These are
 * arithmetic with a scalar and comparisons with a scalar under `bool` (a sample per sample, labels
 * kept). A comparison without `bool` drops series, so that `max` groups could make fewer than the
 * `max` series Loki answers; `label_replace` may merge groups into one series, or make two series
 * Loki refuses as duplicates. Those, and every other operation, keep the whole computation.
 */
import type { SampleExpr } from "../logql/ast";
import { literalValue } from "../engine/metric";

const ARITHMETIC = new Set(["+", "-", "*", "/", "%", "^"]);
const COMPARISON = new Set(["==", "!=", ">", ">=", "<", "<="]);

export function breakdownPart(expr: SampleExpr): SampleExpr {
  if (expr.kind !== "BinaryOp") return expr;
  const keepsEachSample = ARITHMETIC.has(expr.op) || (COMPARISON.has(expr.op) && expr.returnBool);
  if (!keepsEachSample) return expr;
  if (literalValue(expr.lhs) !== undefined && literalValue(expr.rhs) === undefined) return breakdownPart(expr.rhs);
  if (literalValue(expr.rhs) !== undefined && literalValue(expr.lhs) === undefined) return breakdownPart(expr.lhs);
  return expr;
}
