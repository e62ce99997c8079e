/**
 * Runs a pushed-down unwrap plan (src/plan/unwrap-pushdown.ts): VictoriaLogs returns per (bucket,
 * group) the aggregate of the exactly-readable values, their count, and how many rows it could not
 * prove Loki reads the same way. Any such row anywhere in the window means "evaluate locally"
 * (undefined); otherwise each evaluation window combines its buckets.
 */
import type { Labels, Series } from "../engine/types";
import type { OriginClient } from "../origin/client";
import type { MetricGrid } from "../plan/metric-pushdown";
import type { UnwrapBucketPlan } from "../plan/unwrap-pushdown";
import type { ScanStats } from "./logs";
import { bucketRows, evaluationTimes, windowSpans } from "./metric-pushdown";

interface Bucket {
  /** Inclusive bucket end, ns. */
  end: bigint;
  value: number;
  count: number;
}

export async function runUnwrapPlan(
  client: OriginClient,
  plan: UnwrapBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
): Promise<Series[] | undefined> {
  const groups = new Map<string, { labels: Labels; buckets: Bucket[] }>();
  for (const { row, labels, key, end } of await bucketRows(client, plan, grid, stats)) {
    if (Number(row.__bad ?? "0") !== 0) return undefined;
    const count = Number(row.__n ?? "0");
    // A bucket whose rows all lack the field yields no sample in Loki either.
    if (count === 0) continue;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { labels, buckets: [] }));
    g.buckets.push({ end, value: Number(row.__v), count });
  }

  const times = evaluationTimes(grid);
  const out: Series[] = [];
  for (const g of groups.values()) {
    const buckets = g.buckets.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
    const ends = buckets.map((b) => b.end);
    const points: Series["points"] = [];
    for (const { t, lo, hi } of windowSpans(ends, times, plan))
      points.push({ t, v: combine(plan.fn, buckets, lo, hi) });
    if (points.length > 0) out.push({ labels: g.labels, points });
  }
  return out;
}

function combine(fn: UnwrapBucketPlan["fn"], buckets: readonly Bucket[], lo: number, hi: number): number {
  let acc = fn === "min" ? Infinity : fn === "max" ? -Infinity : 0;
  let count = 0;
  for (let i = lo; i < hi; i++) {
    const b = buckets[i]!;
    if (fn === "min") acc = Math.min(acc, b.value);
    else if (fn === "max") acc = Math.max(acc, b.value);
    else acc += b.value;
    count += b.count;
  }
  return fn === "avg" ? acc / count : acc;
}
