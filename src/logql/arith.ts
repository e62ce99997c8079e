/**
 * LogQL's arithmetic and comparison on two sample values, shared by the parser (which folds
 * literal-only expressions as Loki does) and the metric evaluator. Division or modulo by zero is
 * NaN, as in Loki; `^` follows Go's math.Pow.
 */
import type { ArithmeticOp, ComparisonOp } from "./ast";

export function arithmetic(op: ArithmeticOp, l: number, r: number): number {
  switch (op) {
    case "+":
      return l + r;
    case "-":
      return l - r;
    case "*":
      return l * r;
    case "/":
      return r === 0 ? NaN : l / r;
    case "%":
      // JS `%` has Go math.Mod's semantics (result takes the dividend's sign).
      return r === 0 ? NaN : l % r;
    case "^":
      return goPow(l, r);
  }
}

/** Go's math.Pow where it differs from JS: 1^y and (−1)^±Inf are 1, even for NaN/Inf exponents. */
function goPow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return Math.pow(x, y);
}

export function compare(op: ComparisonOp, l: number, r: number): boolean {
  switch (op) {
    case "==":
      return l === r;
    case "!=":
      return l !== r;
    case ">":
      return l > r;
    case ">=":
      return l >= r;
    case "<":
      return l < r;
    case "<=":
      return l <= r;
  }
}
