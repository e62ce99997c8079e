/**
 * Label filters with Loki's typing. String filters compare the value (a missing label is "");
 * numeric, duration and bytes filters drop entries without the label and keep — marked
 * LabelFilterErr — entries whose value does not parse; `ip()` filters pass entries that already
 * carry an error.
 */
import type { LabelFilterExpr, NumericFilterOp } from "../../logql/ast";
import { compare } from "../../logql/arith";
import { compileGoRegexp } from "../../logql/go-regexp";
import { parseBytes } from "../../core/go/bytes";
import { parseDurationNs } from "../../core/go/duration";
import type { ParseResult } from "../../core/go/result";
import { parseFloat } from "../../core/go/strconv";
import { containsMatchingIp, ipMatcherOf } from "../../util/ip";
import { ERROR_LABEL, type LabelsBuilder } from "./labels";

export const LABEL_FILTER_ERR = "LabelFilterErr";

export type LabelPredicate = (b: LabelsBuilder) => boolean;

function typedFilter(
  name: string,
  op: NumericFilterOp,
  target: number,
  parse: (s: string) => ParseResult,
): LabelPredicate {
  return (b) => {
    const v = b.get(name);
    if (v === undefined) return false;
    const parsed = parse(v);
    if (!parsed.ok) {
      // The first error is usually the more useful one, so it is kept.
      if (!b.hasErr()) {
        b.err = LABEL_FILTER_ERR;
        b.errDetails = parsed.error;
      }
      return true;
    }
    // `=` is the label filters' spelling of `==`.
    return compare(op === "=" ? "==" : op, parsed.value, target);
  };
}

export function stringMatcher(op: "=" | "!=" | "=~" | "!~", value: string): (v: string) => boolean {
  switch (op) {
    case "=":
      return (v) => v === value;
    case "!=":
      return (v) => v !== value;
    case "=~": {
      const re = compileGoRegexp(value, { anchored: true });
      return (v) => re.test(v);
    }
    case "!~": {
      const re = compileGoRegexp(value, { anchored: true });
      return (v) => !re.test(v);
    }
  }
}

export function compileLabelFilter(f: LabelFilterExpr): LabelPredicate {
  switch (f.type) {
    case "string": {
      const m = stringMatcher(f.op, f.value);
      const name = f.name;
      if (name === ERROR_LABEL) return (b) => m(b.err);
      return (b) => m(b.get(name) ?? "");
    }
    case "number":
      return typedFilter(f.name, f.op, f.value, parseFloat);
    case "duration":
      return typedFilter(f.name, f.op, f.value, parseDurationNs);
    case "bytes":
      return typedFilter(f.name, f.op, f.value, parseBytes);
    case "ip": {
      // A bad pattern fails the query when the filter stands alone (logql/stage-build.ts); inside
      // `and`/`or` Loki keeps the filter, and it matches nothing.
      const matcher = ipMatcherOf(f.cidr);
      const name = f.name;
      const negate = f.op === "!=";
      return (b) => {
        if (b.hasErr()) return true;
        const v = b.get(name);
        if (v === undefined || matcher === undefined) return false;
        return containsMatchingIp(v, matcher) !== negate;
      };
    }
    case "paren":
      return compileLabelFilter(f.expr);
    case "binary": {
      const left = compileLabelFilter(f.left);
      const right = compileLabelFilter(f.right);
      // Loki evaluates the right side of `and` even when the left failed (errors it sets are moot).
      if (f.op === "or") return (b) => left(b) || right(b);
      return (b) => {
        const l = left(b);
        const r = right(b);
        return l && r;
      };
    }
  }
}
