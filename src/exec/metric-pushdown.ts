/**
 * Runs a pushed-down metric plan (src/plan/metric-pushdown.ts): VictoriaLogs returns one row per
 * (bucket, group); the Worker adds up each evaluation window's buckets with a sliding two-pointer
 * pass, so the work is linear in buckets plus steps whatever the range.
 */
import type { Labels, Series } from "../engine/types";
import type { CachedOrigin } from "../cache/cached-origin";
import type { VLRow } from "../origin/rows";
import type { StatsTable } from "../origin/stats-table";
import { parseVLTime } from "../origin/timefmt";
import { POINTS_PER_STATS_ROW } from "../cache/extents";
import type { BucketGrid, BucketPlan, MetricGrid } from "../plan/metric-pushdown";
import type { ScanStats } from "./logs";

export interface GroupBuckets {
  labels: Labels;
  /** Bucket ranks (BucketRows.ranks: the order of their ends) and values, as the rows came. */
  ranks: number[];
  values: number[];
}

/**
 * A bucket grid's answer: its rows held compactly (StatsTable), with what each distinct time and
 * group stands for, worked out once for all the rows that share it.
 */
export interface BucketRows {
  table: StatsTable;
  /** By time index: the bucket's inclusive end, ns. */
  ends: readonly bigint[];
  /** By time index: the rank of the bucket's end among the answer's distinct ends (equal ends share one). */
  ranks: Int32Array;
  /** By rank: the distinct bucket ends, ascending. */
  rankEnds: readonly bigint[];
  /** By group index: the group's values of the grid's `groupBy`, equal for the rows of one group and only for them. */
  keys: readonly string[];
  /** By group index: the group's labels among `groupBy`. */
  labels: readonly Labels[];
  /** The rows of the `after` query, from each origin request made (ExtentQuery.after). */
  after: readonly VLRow[];
}

/**
 * The rows of a bucket grid's stats query, chunk by chunk through the results cache, with the
 * stats results `values` (a plain plan's `__v` unless told) read as numbers; with `maxPoints` (`MAX_METRIC_POINTS`), at most
 * `maxPoints / perRow` rows (PointLimitError past them). With `after`, each origin request also runs
 * that query once its buckets are counted (ExtentQuery.after).
 */
export async function bucketRows(
  client: CachedOrigin,
  plan: BucketGrid,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
  values: readonly string[] = ["__v"],
  perRow = POINTS_PER_STATS_ROW,
  after?: string,
  /** Results kept as each row's text (StatsTable.texts), not as part of its group. */
  texts: readonly string[] = [],
): Promise<BucketRows> {
  stats.subqueries++;
  const { table, after: afterRows } = await client.timeBuckets.rowsAndAfter({
    logsql: plan.logsql,
    window: plan.window,
    width: plan.width,
    shift: plan.shift,
    // Buckets outside the plan's window fall outside every evaluation window: whole chunks are exact.
    clip: false,
    section: grid.instant ? "instantMetricResult" : "result",
    values,
    texts,
    budget: maxPoints === undefined ? undefined : { points: maxPoints, perRow },
    after,
  });
  const ends = table.times.map((time) => parseVLTime(time) + plan.width - 1n);
  // The few hundred distinct ends are ordered once; rows then compare small integers, not bigints.
  const byEnd = ends.map((_, t) => t).sort((a, b) => (ends[a]! < ends[b]! ? -1 : ends[a]! > ends[b]! ? 1 : 0));
  const ranks = new Int32Array(ends.length);
  const rankEnds: bigint[] = [];
  for (const t of byEnd) {
    if (rankEnds[rankEnds.length - 1] !== ends[t]) rankEnds.push(ends[t]!);
    ranks[t] = rankEnds.length - 1;
  }
  const [only, ...more] = plan.groupBy;
  // One label's value is its own key; several are told apart as a JSON array.
  const keys = table.groups.map((row) =>
    only === undefined
      ? ""
      : more.length === 0
        ? (row[only] ?? "")
        : JSON.stringify(plan.groupBy.map((n) => row[n] ?? "")),
  );
  // Groups with the same key share one labels object.
  const byKey = new Map<string, Labels>();
  const labels = table.groups.map((row, g) => {
    let l = byKey.get(keys[g]!);
    if (!l) byKey.set(keys[g]!, (l = groupLabelsOf(row, plan.groupBy)));
    return l;
  });
  return { table, ends, ranks, rankEnds, keys, labels, after: afterRows };
}

/**
 * A row's labels among `groupBy`, each under its Loki name (`names`, where the origin's fields are
 * named apart from the labels): Loki has no empty labels, VictoriaLogs reads a missing field as "".
 * A value equal to `setEmpty` stands for a label set to "" (Loki keeps those as series of their own).
 */
export function groupLabelsOf(
  row: VLRow,
  groupBy: readonly string[],
  names: readonly string[] = groupBy,
  setEmpty?: string,
): Labels {
  const labels: Labels = {};
  for (let i = 0; i < groupBy.length; i++) {
    const v = row[groupBy[i]!];
    if (v) labels[names[i]!] = v === setEmpty ? "" : v;
  }
  return labels;
}

/** The grid's evaluation times. */
export function evaluationTimes(grid: MetricGrid): bigint[] {
  const times: bigint[] = [];
  if (grid.instant) times.push(grid.start);
  else for (let t = grid.start; t <= grid.end; t += grid.step) times.push(t);
  return times;
}

export async function runBucketPlan(
  client: CachedOrigin,
  plan: BucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<Series[]> {
  const rows = await bucketRows(client, plan, grid, stats, maxPoints);
  return windowTotals(groupBuckets(rows).values(), grid, plan, rows.rankEnds);
}

/**
 * Each group's buckets, in one pass over the rows (a group is looked up once per distinct group);
 * the rows themselves are let go before the series are built.
 */
function groupBuckets({ table, ranks, keys, labels }: BucketRows): Map<string, GroupBuckets> {
  const byGroup: (GroupBuckets | undefined)[] = [];
  const groups = new Map<string, GroupBuckets>();
  for (let i = 0; i < table.length; i++) {
    const gi = table.groupIndex(i);
    let g = byGroup[gi];
    if (!g) {
      g = groups.get(keys[gi]!);
      if (!g) groups.set(keys[gi]!, (g = { labels: labels[gi]!, ranks: [], values: [] }));
      byGroup[gi] = g;
    }
    g.ranks.push(ranks[table.timeIndex(i)]!);
    g.values.push(table.value(i, 0));
  }
  return groups;
}

/**
 * Each group's value per evaluation time: the total of the buckets in its window (divided by the
 * window's seconds for a rate), for the times whose window holds any of its buckets. `rankEnds`:
 * the bucket ends the groups' ranks stand for (BucketRows.rankEnds).
 */
export function windowTotals(
  groups: Iterable<GroupBuckets>,
  grid: MetricGrid,
  plan: Pick<BucketGrid, "offset" | "width" | "bucketsPerWindow"> & { perSeconds: number },
  rankEnds: readonly bigint[],
): Series[] {
  // Each time's span of ranks, found once for every group: a group's span is its buckets inside it.
  const spans = [...windowSpans(rankEnds, evaluationTimes(grid), plan)];
  // Per rank, the first span reaching past it (spans' ends ascend): a group whose window is empty
  // goes straight to the first span that can hold its next bucket, so a sparse group (an alert's
  // series with a few matching rows a day) costs its buckets, not every evaluation time.
  const firstSpanPast = new Int32Array(rankEnds.length).fill(spans.length);
  for (let s = spans.length - 1; s >= 0; s--) {
    for (let r = s === 0 ? 0 : spans[s - 1]!.hi; r < spans[s]!.hi; r++) firstSpanPast[r] = s;
  }
  const slots = new Int32Array(rankEnds.length).fill(-1);
  const out: Series[] = [];
  for (const g of groups) {
    const { ranks, totals } = bucketTotals(g, slots);
    const points: Series["points"] = [];
    // The window total, kept as the span slides: admit the buckets it gains, retire those it leaves.
    let sum = 0;
    let admitted = 0;
    let retired = 0;
    let lo = 0;
    let hi = 0;
    for (let s = 0; s < spans.length;) {
      const span = spans[s]!;
      while (hi < ranks.length && ranks[hi]! < span.hi) hi++;
      while (lo < hi && ranks[lo]! < span.lo) lo++;
      if (hi === lo) {
        if (hi === ranks.length) break;
        s = Math.max(s + 1, firstSpanPast[ranks[hi]!]!);
        continue;
      }
      while (admitted < hi) sum += totals[admitted++]!;
      while (retired < lo) sum -= totals[retired++]!;
      points.push({ t: span.t, v: plan.perSeconds > 0 ? sum / plan.perSeconds : sum });
      s++;
    }
    if (points.length > 0) out.push({ labels: g.labels, points });
  }
  return out;
}

/**
 * A group's distinct bucket ranks, ascending, and each one's total: rows of the same bucket (a
 * group whose label is missing in some rows and empty in others) add up in the order they came.
 * `slots` (one per rank, all -1) is scratch, left as it was found.
 */
function bucketTotals(g: GroupBuckets, slots: Int32Array): { ranks: Int32Array; totals: Float64Array } {
  const distinct: number[] = [];
  const sums: number[] = [];
  for (let i = 0; i < g.ranks.length; i++) {
    const rank = g.ranks[i]!;
    const at = slots[rank]!;
    if (at < 0) {
      slots[rank] = distinct.length;
      distinct.push(rank);
      sums.push(g.values[i]!);
    } else sums[at] = sums[at]! + g.values[i]!;
  }
  const ranks = Int32Array.from(distinct).sort();
  const totals = new Float64Array(ranks.length);
  for (let k = 0; k < ranks.length; k++) totals[k] = sums[slots[ranks[k]!]!]!;
  for (const rank of distinct) slots[rank] = -1;
  return { ranks, totals };
}

/**
 * For each evaluation time whose window (t − offset − range, t − offset] holds buckets, the index
 * span [lo, hi) of those buckets in `ends` (inclusive bucket ends, ascending), found with two
 * pointers: linear in buckets plus times.
 */
export function* windowSpans(
  ends: readonly bigint[],
  times: readonly bigint[],
  plan: Pick<BucketGrid, "offset" | "width" | "bucketsPerWindow">,
): Generator<{ t: bigint; lo: number; hi: number }> {
  const range = plan.width * BigInt(plan.bucketsPerWindow);
  let lo = 0;
  let hi = 0;
  for (const t of times) {
    const windowEnd = t - plan.offset;
    while (hi < ends.length && ends[hi]! <= windowEnd) hi++;
    while (lo < hi && ends[lo]! <= windowEnd - range) lo++;
    if (hi > lo) yield { t, lo, hi };
  }
}
