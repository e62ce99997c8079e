/**
 * The rows a counting push-down's guard matched (plan/guarded-rows.ts), counted by the Worker and
 * added to the origin's counts of the others.
 */
import type { MetricResult, Series } from "../engine/types";
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
  const byLabels = new Map<string, Map<bigint, number>>();
  const labelsOf = new Map<string, Series["labels"]>();
  for (const s of [...totals, ...guarded]) {
    const key = labelsKey(s.labels);
    let points = byLabels.get(key);
    if (!points) {
      byLabels.set(key, (points = new Map()));
      labelsOf.set(key, s.labels);
    }
    for (const p of s.points) points.set(p.t, (points.get(p.t) ?? 0) + p.v);
  }
  const out: Series[] = [];
  for (const [key, points] of byLabels) {
    const ordered = [...points].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push({
      labels: labelsOf.get(key)!,
      points: ordered.map(([t, v]) => ({ t, v: plan.perSeconds > 0 ? v / plan.perSeconds : v })),
    });
  }
  return out;
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
