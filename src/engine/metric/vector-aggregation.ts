/**
 * Vector aggregations, applied independently at every step (topk ranks per step, not per
 * series). The arithmetic follows Loki's evaluator: running mean, Welford variance, NaN-aware
 * min/max, and heap-equivalent tie breaking for topk/bottomk (an earlier sample keeps its place).
 */
import type { Grouping, VectorAggregationExpr } from "../../logql/ast";
import type { VectorAggregationName } from "../../logql/functions";
import type { Labels, VectorSample } from "../types";
import { groupLabels, labelsKey } from "./labels";

const NO_GROUPING: Grouping = { without: false, labels: [] };

/** One group's running state; a group starts from its first sample. */
interface Fold {
  /** The sum, or the extreme, so far. */
  value: number;
  mean: number;
  count: number;
  /** Welford's sum of squared deviations. */
  m2: number;
}

export type VectorImplementation =
  /** One sample per group: the group's samples folded one at a time. */
  | { kind: "fold"; add: (g: Fold, v: number) => void; result: (g: Fold) => number }
  /** The group's samples themselves, best first; `limited`: only the first k (the parameter). */
  | { kind: "rank"; descending: boolean; limited: boolean };

function addWelford(g: Fold, v: number): void {
  g.count++;
  const delta = v - g.mean;
  g.mean += delta / g.count;
  g.m2 += delta * (v - g.mean);
}

/** Every vector aggregation of VECTOR_AGGREGATIONS, as the engine computes it. */
export const VECTOR_IMPLEMENTATIONS = {
  sum: {
    kind: "fold",
    add: (g, v) => {
      g.value += v;
    },
    result: (g) => g.value,
  },
  avg: {
    kind: "fold",
    add: (g, v) => {
      g.count++;
      g.mean += (v - g.mean) / g.count;
    },
    result: (g) => g.mean,
  },
  count: {
    kind: "fold",
    add: (g) => {
      g.count++;
    },
    result: (g) => g.count,
  },
  max: {
    kind: "fold",
    add: (g, v) => {
      if (g.value < v || Number.isNaN(g.value)) g.value = v;
    },
    result: (g) => g.value,
  },
  min: {
    kind: "fold",
    add: (g, v) => {
      if (g.value > v || Number.isNaN(g.value)) g.value = v;
    },
    result: (g) => g.value,
  },
  stddev: { kind: "fold", add: addWelford, result: (g) => Math.sqrt(g.m2 / g.count) },
  stdvar: { kind: "fold", add: addWelford, result: (g) => g.m2 / g.count },
  topk: { kind: "rank", descending: true, limited: true },
  bottomk: { kind: "rank", descending: false, limited: true },
  // Computed exactly, as topk is.
  approx_topk: { kind: "rank", descending: true, limited: true },
  sort: { kind: "rank", descending: false, limited: false },
  sort_desc: { kind: "rank", descending: true, limited: false },
} as const satisfies Record<VectorAggregationName, VectorImplementation>;

export function aggregateVector(expr: VectorAggregationExpr, vec: readonly VectorSample[]): VectorSample[] {
  const impl: VectorImplementation = VECTOR_IMPLEMENTATIONS[expr.op];
  const grouping = expr.grouping ?? NO_GROUPING;
  switch (impl.kind) {
    case "fold":
      return foldGroups(impl, grouping, vec);
    case "rank": {
      const k = expr.param ?? 0;
      if (impl.limited && !(k >= 1)) return [];
      return rankGroups(impl.descending, impl.limited ? k : undefined, grouping, vec);
    }
  }
}

function foldGroups(
  impl: Extract<VectorImplementation, { kind: "fold" }>,
  grouping: Grouping,
  vec: readonly VectorSample[],
): VectorSample[] {
  const groups = new Map<string, { labels: Labels; fold: Fold }>();
  for (const s of vec) {
    const labels = groupLabels(s.labels, grouping);
    const key = labelsKey(labels);
    const g = groups.get(key);
    if (g) impl.add(g.fold, s.v);
    else groups.set(key, { labels, fold: { value: s.v, mean: s.v, count: 1, m2: 0 } });
  }
  const out: VectorSample[] = [];
  for (const g of groups.values()) out.push({ labels: g.labels, v: impl.result(g.fold) });
  return out;
}

/** Each group's members ranked, groups in order of their first sample. */
function rankGroups(
  descending: boolean,
  limit: number | undefined,
  grouping: Grouping,
  vec: readonly VectorSample[],
): VectorSample[] {
  // Without `by` labels every sample is in the one group: no key to build per sample and step.
  if (!grouping.without && grouping.labels.length === 0) {
    const best = ranked(vec, descending);
    return limit === undefined ? best : best.slice(0, limit);
  }
  const groups = new Map<string, VectorSample[]>();
  for (const s of vec) {
    const key = labelsKey(groupLabels(s.labels, grouping));
    const members = groups.get(key);
    if (members) members.push(s);
    else groups.set(key, [s]);
  }
  const out: VectorSample[] = [];
  for (const members of groups.values()) {
    const best = ranked(members, descending);
    out.push(...(limit === undefined ? best : best.slice(0, limit)));
  }
  return out;
}

/** Best first; NaN ranks last either way; ties keep input order (a stable sort). */
function ranked(members: readonly VectorSample[], descending: boolean): VectorSample[] {
  return [...members].sort((a, b) => {
    const an = Number.isNaN(a.v);
    const bn = Number.isNaN(b.v);
    if (an || bn) return an === bn ? 0 : an ? 1 : -1;
    if (a.v === b.v) return 0;
    return a.v > b.v === descending ? -1 : 1;
  });
}
