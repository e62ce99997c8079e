import { describe, expect, it } from "vitest";
import { betweenVectors, foldLiterals, withScalar } from "../../../../src/engine/metric/binary";
import { arithmetic } from "../../../../src/logql/arith";
import { MetricEvalError } from "../../../../src/engine/metric/errors";
import type { VectorSample } from "../../../../src/engine/types";
import { ignoring, on } from "./support/ast";

const s = (labels: Record<string, string>, v: number): VectorSample => ({ labels, v });

describe("arithmetic", () => {
  it("follows Loki: division and modulo by zero are NaN, % takes the dividend's sign, ^ is Go's Pow", () => {
    expect(arithmetic("/", 1, 0)).toBeNaN();
    expect(arithmetic("/", -1, 0)).toBeNaN();
    expect(arithmetic("%", 5, 0)).toBeNaN();
    expect(arithmetic("%", -7, 3)).toBe(-1);
    expect(arithmetic("%", 7, -3)).toBe(1);
    expect(arithmetic("%", 5.5, 2)).toBe(1.5);
    expect(arithmetic("^", 2, 10)).toBe(1024);
    expect(arithmetic("^", 1, NaN)).toBe(1);
    expect(arithmetic("^", -1, Infinity)).toBe(1);
    expect(arithmetic("^", 0, -1)).toBe(Infinity);
  });
  it("folds literal-only expressions with comparisons giving 0/1", () => {
    // (2 + 3) * 4 ^ 2 / 8 = 5 * 16 / 8 = 10 (inst-scalar-arith).
    expect(foldLiterals("/", foldLiterals("*", foldLiterals("+", 2, 3), foldLiterals("^", 4, 2)), 8)).toBe(10);
    expect(foldLiterals(">", 2, 1)).toBe(1);
    expect(foldLiterals(">", 1, 2)).toBe(0);
  });
});

describe("vector and scalar", () => {
  const vec = [s({ a: "1" }, 1), s({ a: "2" }, 5)];
  it("applies the operator sample by sample and keeps labels", () => {
    expect(withScalar("*", false, 60, vec, false)).toEqual([s({ a: "1" }, 60), s({ a: "2" }, 300)]);
    expect(withScalar("-", false, 10, vec, true)).toEqual([s({ a: "1" }, 9), s({ a: "2" }, 5)]);
  });
  it("filters on comparisons keeping the vector's value, on either side", () => {
    expect(withScalar(">=", false, 3, vec, false)).toEqual([s({ a: "2" }, 5)]);
    // 3 > v keeps samples below 3 with their own value, not the literal.
    expect(withScalar(">", false, 3, vec, true)).toEqual([s({ a: "1" }, 1)]);
  });
  it("returns 0/1 with bool", () => {
    expect(withScalar("<", true, 3, vec, false)).toEqual([s({ a: "1" }, 1), s({ a: "2" }, 0)]);
  });
});

describe("vector and vector", () => {
  const lhs = [s({ app: "x", ns: "p" }, 10), s({ app: "y", ns: "p" }, 20), s({ app: "z", ns: "p" }, 30)];
  const rhs = [s({ app: "x", ns: "p" }, 2), s({ app: "y", ns: "p" }, 40)];
  it("matches one-to-one on the full label set and drops unmatched samples", () => {
    expect(betweenVectors("/", false, undefined, lhs, rhs)).toEqual([
      s({ app: "x", ns: "p" }, 5),
      s({ app: "y", ns: "p" }, 0.5),
    ]);
  });
  it("filters with comparisons keeping the left value, or 0/1 with bool", () => {
    expect(betweenVectors(">", false, undefined, lhs, rhs)).toEqual([s({ app: "x", ns: "p" }, 10)]);
    expect(betweenVectors(">", true, undefined, lhs, rhs)).toEqual([
      s({ app: "x", ns: "p" }, 1),
      s({ app: "y", ns: "p" }, 0),
    ]);
  });
  it("on (...) keeps only the listed labels; ignoring (...) drops them", () => {
    const other = [s({ app: "x", ns: "s" }, 5)];
    expect(betweenVectors("-", false, on(["app"]), lhs, other)).toEqual([s({ app: "x" }, 5)]);
    expect(betweenVectors("-", false, ignoring(["ns"]), lhs, other)).toEqual([s({ app: "x" }, 5)]);
    expect(betweenVectors("-", false, undefined, lhs, other)).toEqual([]);
  });
  it("group_left: many on the left, labels from the left plus included labels from the right", () => {
    const many = [s({ app: "x", ns: "p" }, 3), s({ app: "x", ns: "s" }, 1)];
    const one = [s({ app: "x", team: "t1" }, 4)];
    expect(betweenVectors("/", false, on(["app"], "many-to-one", ["team"]), many, one)).toEqual([
      s({ app: "x", ns: "p", team: "t1" }, 0.75),
      s({ app: "x", ns: "s", team: "t1" }, 0.25),
    ]);
    // ignoring (ns) group_left (range-bin-ignoring's shape): values are left / right.
    expect(betweenVectors("/", false, ignoring(["ns"], "many-to-one"), many, [s({ app: "x" }, 4)])).toEqual([
      s({ app: "x", ns: "p" }, 0.75),
      s({ app: "x", ns: "s" }, 0.25),
    ]);
  });
  it("group_right: many on the right, values still left ⊕ right", () => {
    const one = [s({ app: "x" }, 6)];
    const many = [s({ app: "x", ns: "p" }, 3), s({ app: "x", ns: "s" }, 2)];
    expect(betweenVectors("/", false, on(["app"], "one-to-many"), one, many)).toEqual([
      s({ app: "x", ns: "p" }, 2),
      s({ app: "x", ns: "s" }, 3),
    ]);
  });
  it("rejects ambiguous matches like Loki", () => {
    const many = [s({ app: "x", ns: "p" }, 3), s({ app: "x", ns: "s" }, 1)];
    expect(() => betweenVectors("+", false, on(["app"]), many, [s({ app: "x" }, 1)])).toThrow(
      "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)",
    );
    expect(() => betweenVectors("+", false, on(["app"]), [s({ app: "x" }, 1)], many)).toThrow(MetricEvalError);
    expect(() => betweenVectors("+", false, on(["app"]), [s({ app: "x" }, 1)], many)).toThrow(
      "found duplicate series on the right hand-side;many-to-many matching not allowed: matching labels must be unique on one side",
    );
  });
  it("and / or / unless are set operations on signatures", () => {
    expect(betweenVectors("and", false, undefined, lhs, rhs)).toEqual(lhs.slice(0, 2));
    expect(betweenVectors("unless", false, undefined, lhs, rhs)).toEqual(lhs.slice(2));
    const extra = [s({ app: "x", ns: "p" }, 99), s({ app: "w", ns: "p" }, 7)];
    expect(betweenVectors("or", false, undefined, lhs, extra)).toEqual([...lhs, s({ app: "w", ns: "p" }, 7)]);
    expect(betweenVectors("or", false, undefined, [], extra)).toEqual(extra);
    expect(betweenVectors("and", false, on(["app"]), lhs, [s({ app: "z" }, 0)])).toEqual([lhs[2]]);
    expect(betweenVectors("unless", false, undefined, lhs, [])).toEqual(lhs);
  });
});
