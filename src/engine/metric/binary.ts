/**
 * Binary operators between vectors and literals, one step at a time, with Loki's merge rules:
 * division or modulo by zero is NaN (not ±Inf), comparisons filter unless `bool` and a kept
 * sample keeps the vector side's value, set operators match on signatures, and unmatched samples
 * are dropped.
 */
import type { ArithmeticOp, BinaryOp, ComparisonOp, VectorMatching } from "../../logql/ast";
import type { Labels, VectorSample } from "../types";
import { arithmetic, compare } from "../../logql/arith";
import { MetricEvalError } from "./errors";
import { dropLabels, keepLabels, labelsKey } from "./labels";

const COMPARISONS = new Set<BinaryOp>(["==", "!=", ">", ">=", "<", "<="]);
const SET_OPS = new Set<BinaryOp>(["and", "or", "unless"]);

export function isComparison(op: BinaryOp): op is ComparisonOp {
  return COMPARISONS.has(op);
}

export function isSetOp(op: BinaryOp): boolean {
  return SET_OPS.has(op);
}

/**
 * One merged value, or undefined when a filtering comparison drops the sample. `kept` is the
 * value a filtering comparison keeps (the vector side's).
 */
export function merge(op: BinaryOp, l: number, r: number, filter: boolean, kept: number): number | undefined {
  if (isComparison(op)) {
    const holds = compare(op, l, r);
    if (filter) return holds ? kept : undefined;
    return holds ? 1 : 0;
  }
  if (isSetOp(op)) throw new MetricEvalError(`unexpected set operator ${op} between samples`);
  return arithmetic(op as ArithmeticOp, l, r);
}

/** Literal ⊕ literal, as Loki folds it at parse time: comparisons give 0/1 whatever `bool` says. */
export function foldLiterals(op: BinaryOp, l: number, r: number): number {
  if (isSetOp(op)) {
    throw new MetricEvalError(
      `parse error : unexpected literal for left leg of logical/set binary operation (${op}): ${l.toFixed(6)}`,
      "bad-request",
    );
  }
  return merge(op, l, r, false, l)!;
}

/** vector ⊕ literal or literal ⊕ vector: every sample keeps its labels. */
export function withScalar(
  op: BinaryOp,
  returnBool: boolean,
  scalar: number,
  vec: readonly VectorSample[],
  scalarOnLeft: boolean,
): VectorSample[] {
  if (isSetOp(op)) {
    throw new MetricEvalError(
      `parse error : unexpected literal for ${scalarOnLeft ? "left" : "right"} leg of logical/set binary operation (${op}): ${scalar.toFixed(6)}`,
      "bad-request",
    );
  }
  const out: VectorSample[] = [];
  for (const s of vec) {
    const v = scalarOnLeft ? merge(op, scalar, s.v, !returnBool, s.v) : merge(op, s.v, scalar, !returnBool, s.v);
    if (v !== undefined) out.push({ labels: s.labels, v });
  }
  return out;
}

function signature(labels: Labels, matching: VectorMatching | undefined): string {
  if (!matching) return labelsKey(labels);
  return labelsKey(matching.on ? keepLabels(labels, matching.labels) : dropLabels(labels, matching.labels));
}

/** vector ⊕ vector at one step. */
export function betweenVectors(
  op: BinaryOp,
  returnBool: boolean,
  matching: VectorMatching | undefined,
  lhs: readonly VectorSample[],
  rhs: readonly VectorSample[],
): VectorSample[] {
  const lsigs = lhs.map((s) => signature(s.labels, matching));
  const rsigs = rhs.map((s) => signature(s.labels, matching));
  switch (op) {
    case "and": {
      if (lhs.length === 0 || rhs.length === 0) return [];
      const right = new Set(rsigs);
      return lhs.filter((_, i) => right.has(lsigs[i]!));
    }
    case "or": {
      if (lhs.length === 0) return [...rhs];
      if (rhs.length === 0) return [...lhs];
      const left = new Set(lsigs);
      return [...lhs, ...rhs.filter((_, i) => !left.has(rsigs[i]!))];
    }
    case "unless": {
      if (lhs.length === 0 || rhs.length === 0) return [...lhs];
      const right = new Set(rsigs);
      return lhs.filter((_, i) => !right.has(lsigs[i]!));
    }
    default:
      return matchedArithmetic(op, returnBool, matching, lhs, rhs, lsigs, rsigs);
  }
}

function matchedArithmetic(
  op: BinaryOp,
  returnBool: boolean,
  matching: VectorMatching | undefined,
  lhs: readonly VectorSample[],
  rhs: readonly VectorSample[],
  lsigs: string[],
  rsigs: string[],
): VectorSample[] {
  const card = matching?.card ?? "one-to-one";
  // The "one" side is indexed; for one-to-many that is the left side.
  const oneToMany = card === "one-to-many";
  const many = oneToMany ? rhs : lhs;
  const one = oneToMany ? lhs : rhs;
  const manySigs = oneToMany ? rsigs : lsigs;
  const oneSigs = oneToMany ? lsigs : rsigs;

  const oneBySig = new Map<string, VectorSample>();
  one.forEach((s, i) => {
    const sig = oneSigs[i]!;
    if (oneBySig.has(sig)) {
      throw new MetricEvalError(
        `found duplicate series on the ${oneToMany ? "left" : "right"} hand-side;many-to-many matching not allowed: matching labels must be unique on one side`,
      );
    }
    oneBySig.set(sig, s);
  });

  const matched = new Map<string, Set<string>>();
  const out: VectorSample[] = [];
  many.forEach((m, i) => {
    const sig = manySigs[i]!;
    const o = oneBySig.get(sig);
    if (!o) return;
    const labels = resultLabels(m.labels, o.labels, matching);
    const seen = matched.get(sig);
    if (card === "one-to-one") {
      if (seen) {
        throw new MetricEvalError(
          "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)",
        );
      }
      matched.set(sig, new Set());
    } else {
      const key = labelsKey(labels);
      if (seen?.has(key))
        throw new MetricEvalError("multiple matches for labels: grouping labels must ensure unique matches");
      (seen ?? matched.set(sig, new Set()).get(sig)!).add(key);
    }
    const l = oneToMany ? o : m;
    const r = oneToMany ? m : o;
    const v = merge(op, l.v, r.v, !returnBool, l.v);
    if (v !== undefined) out.push({ labels, v });
  });
  return out;
}

/**
 * Result labels come from the "many" side (the left for one-to-one): `on` keeps only the listed
 * labels and `ignoring` drops them for one-to-one; group_x include labels are copied from the
 * "one" side (or removed when it lacks them).
 */
function resultLabels(many: Labels, one: Labels, matching: VectorMatching | undefined): Labels {
  if (!matching) return many;
  let out: Labels = many;
  if (matching.card === "one-to-one") {
    out = matching.on ? keepLabels(many, matching.labels) : dropLabels(many, matching.labels);
  } else {
    out = { ...many };
  }
  for (const name of matching.include) {
    const v = one[name];
    if (v !== undefined && v !== "") out[name] = v;
    else delete out[name];
  }
  return out;
}
