/**
 * The lenient conversions sprig's math functions apply to their operands (spf13/cast ToInt64,
 * ToInt, ToFloat64): label values are strings, so `{{ add .a 1 }}` parses "41"; anything that does
 * not convert becomes 0 rather than an error.
 */

import { GoInt, type GoValue } from "./values";
import { parseFloat, parseInt } from "../../core/go/strconv";

const MIN_INT64 = -(1n << 63n);

/** cast strips a zero fraction before parsing: "3.0" and "3.00" read as 3, "3.5" does not parse. */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === ".") {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === "0") foundZero = true;
    else return s;
  }
  return s;
}

/** Go's float64 → int64 conversion (truncation; out of range gives the minimum int64 on amd64). */
function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 2 ** 63 || f < -(2 ** 63)) return MIN_INT64;
  return BigInt(Math.trunc(f));
}

export function toInt64(v: GoValue): bigint {
  if (v instanceof GoInt) return v.v;
  switch (typeof v) {
    case "number":
      return floatToInt64(v);
    case "boolean":
      return v ? 1n : 0n;
    case "string": {
      const n = parseInt(trimZeroDecimal(v), 0, 64);
      return n.ok ? n.value : 0n;
    }
  }
  return 0n;
}

export function toFloat64(v: GoValue): number {
  if (v instanceof GoInt) return Number(v.v);
  switch (typeof v) {
    case "number":
      return v;
    case "boolean":
      return v ? 1 : 0;
    case "string": {
      const f = parseFloat(v);
      return f.ok ? f.value : 0;
    }
  }
  return 0;
}
