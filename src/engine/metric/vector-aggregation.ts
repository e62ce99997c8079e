/**
 * Vector aggregations, applied independently at every step (topk ranks per step, not per
 * series). The arithmetic follows Loki's evaluator: running mean, Welford variance, NaN-aware
 * min/max, and heap-equivalent tie breaking for topk/bottomk (an earlier sample keeps its place).
 */
import type { Grouping, VectorAggregationExpr } from "../../logql/ast";
import type { Labels, VectorSample } from "../types";
import { groupLabels, labelsKey } from "./labels";

const NO_GROUPING: Grouping = { without: false, labels: [] };

interface Group {
  labels: Labels;
  value: number;
  mean: number;
  count: number;
  members: VectorSample[];
}

export function aggregateVector(expr: VectorAggregationExpr, vec: readonly VectorSample[]): VectorSample[] {
  const op = expr.op;
  const ranking = op === "topk" || op === "bottomk" || op === "approx_topk";
  if (ranking && !((expr.param ?? 0) >= 1)) return [];
  const grouping = expr.grouping ?? NO_GROUPING;
  const groups = new Map<string, Group>();
  for (const s of vec) {
    const labels = groupLabels(s.labels, grouping);
    const key = labelsKey(labels);
    const g = groups.get(key);
    if (!g) {
      groups.set(key, {
        labels,
        value: op === "stddev" || op === "stdvar" ? 0 : s.v,
        mean: s.v,
        count: 1,
        members: [s],
      });
      continue;
    }
    switch (op) {
      case "sum":
        g.value += s.v;
        break;
      case "avg":
        g.count++;
        g.mean += (s.v - g.mean) / g.count;
        break;
      case "max":
        if (g.value < s.v || Number.isNaN(g.value)) g.value = s.v;
        break;
      case "min":
        if (g.value > s.v || Number.isNaN(g.value)) g.value = s.v;
        break;
      case "count":
        g.count++;
        break;
      case "stddev":
      case "stdvar": {
        g.count++;
        const delta = s.v - g.mean;
        g.mean += delta / g.count;
        g.value += delta * (s.v - g.mean);
        break;
      }
      default:
        g.members.push(s);
    }
  }
  const out: VectorSample[] = [];
  for (const g of groups.values()) {
    switch (op) {
      case "avg":
        out.push({ labels: g.labels, v: g.mean });
        break;
      case "count":
        out.push({ labels: g.labels, v: g.count });
        break;
      case "stddev":
        out.push({ labels: g.labels, v: Math.sqrt(g.value / g.count) });
        break;
      case "stdvar":
        out.push({ labels: g.labels, v: g.value / g.count });
        break;
      case "topk":
      case "approx_topk":
        out.push(...ranked(g.members, true).slice(0, expr.param));
        break;
      case "bottomk":
        out.push(...ranked(g.members, false).slice(0, expr.param));
        break;
      case "sort_desc":
        out.push(...ranked(g.members, true));
        break;
      case "sort":
        out.push(...ranked(g.members, false));
        break;
      default:
        out.push({ labels: g.labels, v: g.value });
    }
  }
  return out;
}

/** Best first; NaN ranks last either way; ties keep input order (a stable sort). */
function ranked(members: VectorSample[], descending: boolean): VectorSample[] {
  return [...members].sort((a, b) => {
    const an = Number.isNaN(a.v);
    const bn = Number.isNaN(b.v);
    if (an || bn) return an === bn ? 0 : an ? 1 : -1;
    if (a.v === b.v) return 0;
    return a.v > b.v === descending ? -1 : 1;
  });
}
