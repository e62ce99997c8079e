/**
 * label_replace(v, dst, replacement, src, regex): when the anchored regex matches the value of
 * `src` (empty when absent), `dst` becomes the expanded replacement, or is removed when that is
 * empty; samples whose value does not match pass through unchanged.
 */
import type { LabelReplaceExpr } from "../../logql/ast";
import type { Labels, VectorSample } from "../types";
import { MetricEvalError } from "./errors";
import { compileGoRegexp, type GoRegexp } from "../../logql/go-regexp";
import { expandTemplate } from "./go-regex";
import { labelsKey } from "./labels";

export type VectorTransform = (vec: readonly VectorSample[]) => VectorSample[];

export function labelReplacer(expr: LabelReplaceExpr): VectorTransform {
  let re: GoRegexp;
  try {
    re = compileGoRegexp(expr.regex, { anchored: true });
  } catch (e) {
    throw new MetricEvalError(`parse error : invalid regex in label_replace: ${(e as Error).message}`, "bad-request");
  }
  // Series keep their label set across steps, so each distinct set is rewritten once.
  const cache = new Map<string, Labels>();
  const rewrite = (labels: Labels): Labels => {
    const key = labelsKey(labels);
    const hit = cache.get(key);
    if (hit) return hit;
    const match = re.exec(labels[expr.src] ?? "");
    let out = labels;
    if (match) {
      const value = expandTemplate(expr.replacement, re, match);
      out = { ...labels };
      delete out[expr.dst];
      if (value !== "") out[expr.dst] = value;
    }
    cache.set(key, out);
    return out;
  };
  return (vec) => vec.map((s) => ({ labels: rewrite(s.labels), v: s.v }));
}
