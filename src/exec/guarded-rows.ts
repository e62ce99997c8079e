/**
 * The rows a counting push-down's guard matched (plan/guarded-rows.ts), counted by the Worker and
 * added to the origin's counts of the others.
 */
import type { MetricResult, Series } from "../engine/types";
import type { MergingAggregation } from "../logql/functions";
import type { VLRow } from "../origin/rows";
import { fieldName, quote } from "../plan/logsql";
import { labelsKey } from "../engine/metric/labels";
import type { BucketGrid, MetricGrid } from "../plan/metric-pushdown";
import { windowTotals, type GroupBuckets } from "./metric-pushdown";

/** The origin's counts of the rows its guard passed, by group, and how many rows the guard matched. */
export interface GuardedCounts {
  groups: GroupBuckets[];
  /** The bucket ends the groups' ranks stand for. */
  rankEnds: readonly bigint[];
  guardedRows: number;
}

/** Counts from groups, and which rows the Worker reads back to count itself (`filter`). */
export interface ReadBackCounts extends GuardedCounts {
  /** The rows read back (a LogsQL filter on the rows as grouped), when `guardedRows` is not 0. */
  filter: string;
}

/** More groups read back than this and their rows are no longer a few: evaluated from rows. */
export const MAX_READ_BACK_GROUPS = 50;

/** The rows of one group: each field it is grouped by with the group's value (a missing one is ""). */
export function groupFilter(row: VLRow, fields: readonly string[]): string {
  const terms = fields.map((f) => {
    const v = row[f];
    if (f === "_stream_id") return `_stream_id:${v ?? ""}`;
    return v ? `${fieldName(f)}:=${quote(v)}` : `${fieldName(f)}:""`;
  });
  return `(${terms.join(" ")})`;
}

/**
 * The part's series: each window's total of the origin's buckets, plus `guarded` (the Worker's
 * totals of the guard's rows, on the same grid), divided by the range's seconds for a rate.
 */
export function countedSeries(
  counts: GuardedCounts,
  grid: MetricGrid,
  plan: Pick<BucketGrid, "offset" | "width" | "bucketsPerWindow"> & { perSeconds: number },
  guarded: readonly Series[] = [],
): Series[] {
  if (guarded.length === 0) return windowTotals(counts.groups, grid, plan, counts.rankEnds);
  const totals = windowTotals(counts.groups, grid, { ...plan, perSeconds: 0 }, counts.rankEnds);
  const fn = plan.perSeconds > 0 ? "rate" : "sum";
  return mergedSamples(fn, { values: totals }, { values: guarded }, plan.perSeconds);
}

/** An evaluation's answer as series: an instant vector's samples as one point each. */
export function seriesOf(result: MetricResult): Series[] {
  switch (result.type) {
    case "matrix":
      return result.series;
    case "vector":
      return result.samples.map((s) => ({ labels: s.labels, points: [{ t: s.t ?? result.t, v: s.v }] }));
    case "scalar":
      return [];
  }
}

/** The Worker's aggregate of an unwrap push-down's guard rows (plan/unwrap-guarded.ts). */
export interface GuardedAggregate {
  /** Per series and window: the samples' sum (before a rate divides) or extreme. */
  values: readonly Series[];
  /** For an average, the samples' count per series and window. */
  counts?: readonly Series[];
}

/**
 * An unwrap push-down's series: the origin's partial aggregate of the rows its guard passed merged,
 * per series and evaluation time, with the Worker's of the guard's rows (`origin.counts` and
 * `guarded.counts` given for an average): sums added (then divided by `seconds` for a rate, by the
 * added counts for an average), extremes compared.
 */
export function mergedSamples(
  fn: "sum" | "rate" | "avg" | "min" | "max",
  origin: GuardedAggregate,
  guarded: GuardedAggregate,
  seconds: number,
): Series[] {
  const combine = fn === "min" ? lesser : fn === "max" ? greater : add;
  const values = mergedPoints([origin.values, guarded.values], combine);
  const counts = fn === "avg" ? mergedPoints([origin.counts ?? [], guarded.counts ?? []], add) : undefined;
  const out: Series[] = [];
  for (const [key, { labels, points }] of values) {
    const n = counts?.get(key)?.points;
    out.push({
      labels,
      points: inTimeOrder(points).map(([t, v]) => ({
        t,
        v: fn === "rate" ? v / seconds : fn === "avg" ? v / (n?.get(t) ?? NaN) : v,
      })),
    });
  }
  return out;
}

/**
 * Several answers' series as one answer: the points of one labels and time combined by `op` (sums
 * added, extremes compared as Loki's fold compares them).
 */
export function mergedSeries(op: MergingAggregation, sides: readonly (readonly Series[])[]): Series[] {
  const merged = mergedPoints(sides, op === "min" ? lesser : op === "max" ? greater : add);
  return [...merged.values()].map(({ labels, points }) => ({
    labels,
    points: inTimeOrder(points).map(([t, v]) => ({ t, v })),
  }));
}

const inTimeOrder = (points: Map<bigint, number>) => [...points].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const add = (a: number, b: number) => a + b;
/** As Loki's fold: a NaN gives way to any other value (range/accumulators.ts). */
const lesser = (a: number, b: number) => (Number.isNaN(a) || b < a ? b : a);
const greater = (a: number, b: number) => (Number.isNaN(a) || b > a ? b : a);

/** Every series' points, by labels and time, those of one labels and time combined. */
function mergedPoints(
  sides: readonly (readonly Series[])[],
  combine: (a: number, b: number) => number,
): Map<string, { labels: Series["labels"]; points: Map<bigint, number> }> {
  const merged = new Map<string, { labels: Series["labels"]; points: Map<bigint, number> }>();
  for (const s of sides.flat()) {
    const key = labelsKey(s.labels);
    let entry = merged.get(key);
    if (!entry) merged.set(key, (entry = { labels: s.labels, points: new Map() }));
    for (const p of s.points) {
      const known = entry.points.get(p.t);
      entry.points.set(p.t, known === undefined ? p.v : combine(known, p.v));
    }
  }
  return merged;
}
