/**
 * Runs a pushed-down counting metric over a parser (src/plan/parser-pushdown.ts): VictoriaLogs
 * returns per (bucket, group) how many rows passed the label filters (and their bytes), and how
 * many rows anywhere it could not prove Loki reads the same way. Any such row means "evaluate
 * locally" ("guarded"); otherwise each evaluation window adds up its buckets.
 */
import type { Labels, Series } from "../engine/types";
import type { CachedOrigin } from "../cache/cached-origin";
import type { MetricGrid } from "../plan/metric-pushdown";
import type { ParserBucketPlan } from "../plan/parser-pushdown";
import type { ScanStats } from "./logs";
import { bucketRows, evaluationTimes, windowSpans } from "./metric-pushdown";

interface Group {
  labels: Labels;
  /** Bucket ends (inclusive, ns) with the bucket's value. */
  buckets: { end: bigint; value: number }[];
}

export async function runParserPlan(
  client: CachedOrigin,
  plan: ParserBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<Series[] | "guarded"> {
  const groups = new Map<string, Group>();
  for (const { row, labels, key, end } of await bucketRows(client, plan, grid, stats, maxPoints)) {
    if (Number(row.__bad ?? "0") !== 0) return "guarded";
    // The stats pipe also makes groups of rows the filters refused: Loki has no sample for them.
    const count = Number(row.__c ?? "0");
    if (count === 0) continue;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { labels: lokiLabels(labels, plan), buckets: [] }));
    g.buckets.push({ end, value: plan.value === "count" ? count : Number(row.__v ?? "0") });
  }

  const times = evaluationTimes(grid);
  const out: Series[] = [];
  for (const g of groups.values()) {
    const { ends, totals } = bucketTotals(g.buckets);
    const points: Series["points"] = [];
    // The window total, kept as the span slides: admit the buckets it gains, retire those it leaves.
    let sum = 0;
    let admitted = 0;
    let retired = 0;
    for (const { t, lo, hi } of windowSpans(ends, times, plan)) {
      while (admitted < hi) sum += totals[admitted++]!;
      while (retired < lo) sum -= totals[retired++]!;
      points.push({ t, v: plan.perSeconds > 0 ? sum / plan.perSeconds : sum });
    }
    if (points.length > 0) out.push({ labels: g.labels, points });
  }
  return out;
}

/** The group's labels under Loki's names (the origin's fields are named apart from row fields). */
function lokiLabels(fields: Labels, plan: ParserBucketPlan): Labels {
  const labels: Labels = {};
  plan.groupBy.forEach((field, i) => {
    const v = fields[field];
    if (v) labels[plan.labels[i]!] = v;
  });
  return labels;
}

/** Distinct bucket ends, ascending, with each one's total (rows of one bucket add up). */
function bucketTotals(buckets: { end: bigint; value: number }[]): { ends: bigint[]; totals: number[] } {
  buckets.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
  const ends: bigint[] = [];
  const totals: number[] = [];
  for (const { end, value } of buckets) {
    const last = ends.length - 1;
    if (last >= 0 && ends[last] === end) totals[last] = totals[last]! + value;
    else {
      ends.push(end);
      totals.push(value);
    }
  }
  return { ends, totals };
}
