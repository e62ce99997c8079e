/**
 * Runs a pushed-down unwrap plan (src/plan/unwrap-pushdown.ts): VictoriaLogs returns per (bucket,
 * group) the aggregate of the exactly-readable values (or, for a quantile or a variance, the values
 * themselves), their count, and how many rows it could not prove Loki reads the same way. Where
 * the plan merges such rows (plan/unwrap-guarded.ts), the origin aggregated the other rows only, and
 * the answer is each window's partial aggregate (GuardedUnwrap) for the Worker's aggregate of those
 * rows to merge with (exec/guarded-rows.ts); otherwise any such row anywhere in the window means
 * "evaluate locally" ("guarded"), as does a listed bucket whose values the origin did not all send
 * ("incomplete"). Else each evaluation window combines its buckets: a variance from each bucket's
 * count, mean and sum of squared deviations (exec/moments.ts).
 * A first or last bucket whose samples tied at its earliest (latest) time disagree is "tied": the
 * origin cannot tell which of them Loki takes.
 * With a conversion, a (bucket, group) may come as several rows, one per unit, each converted
 * (exec/unwrap-units.ts) into a bucket of its own: windows combine them as any buckets.
 */
import type { Labels, Series } from "../engine/types";
import type { CachedOrigin } from "../cache/cached-origin";
import type { MetricGrid } from "../plan/metric-pushdown";
import type { UnwrapBucketPlan } from "../plan/unwrap-pushdown";
import type { GuardedSamples } from "../plan/unwrap-guarded";
import type { ScanStats } from "./logs";
import { bucketRows, evaluationTimes, groupLabelsOf, windowSpans } from "./metric-pushdown";
import { POINTS_PER_STATS_ROW, POINTS_PER_TEXT_ROW } from "../cache/extents";
import { plainDecimals } from "./decimal-list";
import { SortedWindow } from "./sorted-window";
import { labelNames } from "./meta";
import { UnitConverter } from "./unwrap-units";
import { UNIT_FIELD } from "../plan/unwrap-units";
import { BUCKET_VALUES } from "../logql/functions";
import { Moments } from "./moments";

/**
 * The origin's aggregate of the rows its guard passed, when the guard matched `guardedRows` rows
 * of a plan that merges them: per group and window, the samples' sum (before a rate divides) or
 * extreme, and for an average their count too.
 */
export interface GuardedUnwrap {
  partial: Series[];
  /** The samples' count per group and window, for an average (`partial` holds their sum). */
  counts?: Series[];
  guardedRows: number;
  /** How the guard's rows are read and aggregated. */
  guarded: GuardedSamples;
  /** The range in seconds a rate divides by. */
  seconds: number;
}

/** What a plan's answer is: its series, its merge with the guard's rows, or why it declines. */
export type UnwrapOutcome = Series[] | GuardedUnwrap | "guarded" | "incomplete" | "tied";

interface Bucket {
  /** Inclusive bucket end, ns. */
  end: bigint;
  value: number;
  count: number;
  /** A bucket of BUCKET_VALUES' functions: its values, as Loki reads them. */
  values?: Float64Array;
}

export async function runUnwrapPlan(
  client: CachedOrigin,
  plan: UnwrapBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<UnwrapOutcome> {
  // Grouped by labels no selected stream has, the first plan would find them in the lines and
  // defer to `parsedLabels`, which is exact whatever the rows hold (its guard sends structured
  // metadata of such a label, beside the line's key, to the Worker). The (cached) stream index
  // says so while the first plan runs: then it is abandoned and `parsedLabels` asked at once.
  if (plan.parsedLabels && plan.streams) {
    const abandon = new AbortController();
    const first = runOnePlan(client.withSignal(abandon.signal), plan, grid, stats, maxPoints);
    // Its failure is thrown where it is awaited, or not at all once abandoned.
    first.catch(() => undefined);
    // Without the index's answer, the first plan's own answer decides, as it does alone.
    if (!(await someStreamHas(client, plan).catch(() => true))) {
      abandon.abort();
      return settled(await runOnePlan(client, plan.parsedLabels, grid, stats, maxPoints));
    }
    return secondIfParsed(await first, client, plan, grid, stats, maxPoints);
  }
  return secondIfParsed(await runOnePlan(client, plan, grid, stats, maxPoints), client, plan, grid, stats, maxPoints);
}

/** Rows name a grouped label only in their lines: grouped by Loki's values of the labels instead. */
async function secondIfParsed(
  outcome: Outcome,
  client: CachedOrigin,
  plan: UnwrapBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<UnwrapOutcome> {
  if (outcome !== "parsed-labels" || !plan.parsedLabels) return settled(outcome);
  return settled(await runOnePlan(client, plan.parsedLabels, grid, stats, maxPoints));
}

type Outcome = UnwrapOutcome | "parsed-labels";

/** A plan's answer with no second plan to ask: rows giving a grouped label in their lines are guarded. */
function settled(outcome: Outcome): UnwrapOutcome {
  return outcome === "parsed-labels" ? "guarded" : outcome;
}

/** Whether a stream the plan selects has one of its grouped labels, from the (cached) stream index. */
async function someStreamHas(client: CachedOrigin, plan: UnwrapBucketPlan): Promise<boolean> {
  const names = new Set(await labelNames(client, plan.window, plan.streams));
  return plan.groupBy.some((label) => names.has(label));
}

async function runOnePlan(
  client: CachedOrigin,
  plan: UnwrapBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<Outcome> {
  const listed = BUCKET_VALUES.has(plan.fn);
  // A first's or last's `__v` is the text of an object too (timedStats, plan/unwrap-pushdown.ts).
  const texts = listed || plan.fn === "first" || plan.fn === "last";
  const guards = plan.parsedLabels ? ["__bad", "__bad_label"] : ["__bad"];
  // A listed bucket's `__v` is a list of values, a text of each row's own, kept per row.
  const { table, ends, keys, labels } = await bucketRows(
    client,
    plan,
    grid,
    stats,
    maxPoints,
    texts ? ["__n", ...guards] : ["__n", ...guards, "__v"],
    texts ? POINTS_PER_TEXT_ROW : POINTS_PER_STATS_ROW,
    undefined,
    texts ? ["__v"] : [],
  );
  const groups = new Map<string, { labels: Labels; buckets: Bucket[] }>();
  const value = guards.length + 1;
  const units = plan.conversion && new UnitConverter(plan.conversion);
  let parsedLabels = false;
  let tied = false;
  let guardedRows = 0;
  for (let i = 0; i < table.length; i++) {
    if (table.value(i, 1) !== 0) {
      // Rows the origin left out of its aggregates: the Worker's to merge in, or the answer is void.
      if (!plan.guarded) return "guarded";
      guardedRows += table.value(i, 1);
    }
    if (plan.parsedLabels && table.value(i, 2) !== 0) parsedLabels = true;
    const count = table.value(i, 0);
    // A bucket whose rows all lack the field yields no sample in Loki either.
    if (count === 0) continue;
    const gi = table.groupIndex(i);
    const end = ends[table.timeIndex(i)]!;
    let bucket: Bucket;
    if (listed) {
      const list = table.text(i, 0);
      const values = units ? units.values(list ?? "", count) : bucketValues(list, count);
      // More values than `values … limit` sends: the origin's list is not the whole bucket.
      if (!values) return "incomplete";
      bucket = { end, value: 0, count, values };
    } else if (texts) {
      const value = settledValue(table.text(i, 0));
      // Not answered yet: rows naming a grouped label in their lines void this plan's groups anyway.
      if (value === undefined) tied = true;
      bucket = { end, value: value ?? NaN, count };
    } else if (units) {
      const unit = table.groups[gi]![UNIT_FIELD] ?? "";
      bucket = { end, value: units.aggregate(plan.fn, table.value(i, value), unit), count };
    } else bucket = { end, value: table.value(i, value), count };
    let g = groups.get(keys[gi]!);
    if (!g)
      groups.set(
        keys[gi]!,
        (g = {
          labels: plan.labels ? groupLabelsOf(labels[gi]!, plan.groupBy, plan.labels, plan.setEmpty) : labels[gi]!,
          buckets: [],
        }),
      );
    g.buckets.push(bucket);
  }

  if (parsedLabels) return "parsed-labels";
  if (tied) return "tied";
  const times = evaluationTimes(grid);
  const windowedSeries = (window: (buckets: readonly Bucket[]) => (lo: number, hi: number) => number): Series[] => {
    const out: Series[] = [];
    for (const g of groups.values()) {
      const buckets = g.buckets.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
      const ends = buckets.map((b) => b.end);
      const value = window(buckets);
      const points: Series["points"] = [];
      for (const { t, lo, hi } of windowSpans(ends, times, plan)) points.push({ t, v: value(lo, hi) });
      if (points.length > 0) out.push({ labels: g.labels, points });
    }
    return out;
  };
  if (guardedRows === 0 || !plan.guarded) return windowedSeries((buckets) => windowOf(plan, buckets));
  const { fn } = plan.guarded;
  // Sums, not averages or rates: the merge adds the guard's rows in before anything divides.
  const partialFn = fn === "min" || fn === "max" ? fn : "sum";
  return {
    partial: windowedSeries((buckets) => windowOf({ ...plan, fn: partialFn }, buckets)),
    ...(fn === "avg" && { counts: windowedSeries((buckets) => windowCount(buckets)) }),
    guardedRows,
    guarded: plan.guarded,
    seconds: rangeSeconds(plan),
  };
}

/** The samples' count of the window of a group's buckets [lo, hi). */
function windowCount(buckets: readonly Bucket[]): (lo: number, hi: number) => number {
  return (lo, hi) => {
    let count = 0;
    for (let i = lo; i < hi; i++) count += buckets[i]!.count;
    return count;
  };
}

/** Loki divides a rate's sum by the range in seconds, as a float (the evaluator's rangeSeconds). */
function rangeSeconds(plan: UnwrapBucketPlan): number {
  return Number(plan.width * BigInt(plan.bucketsPerWindow)) / 1e9;
}

/**
 * A bucket's values from the JSON array of texts `values` sends, read as Loki's unwrap reads them
 * (every one is of the exact shape: the guard saw to it); undefined when the list is not all `count`
 * of them.
 */
function bucketValues(list: string | undefined, count: number): Float64Array | undefined {
  return plainDecimals(list ?? "", count) ?? parsedValues(list ?? "", count);
}

function parsedValues(list: string, count: number): Float64Array | undefined {
  let texts: unknown;
  try {
    texts = JSON.parse(list);
  } catch {
    return undefined;
  }
  if (!Array.isArray(texts) || texts.length !== count) return undefined;
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = Number(texts[i]);
  return values;
}

/**
 * A first's or last's value from `{"__lo": …, "__hi": …}`: the smallest and largest value at its
 * time, both of the exact shape. Undefined when they differ: samples tied at that time disagree.
 */
function settledValue(pair: string | undefined): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(pair ?? "");
  } catch {
    return undefined;
  }
  const { __lo: lo, __hi: hi } = (parsed ?? {}) as { __lo?: unknown; __hi?: unknown };
  if (typeof lo !== "string" || typeof hi !== "string") return undefined;
  const value = Number(lo);
  return value === Number(hi) ? value : undefined;
}

/** The value of the window of a group's buckets [lo, hi) (oldest first). */
function windowOf(plan: UnwrapBucketPlan, buckets: readonly Bucket[]): (lo: number, hi: number) => number {
  const { fn } = plan;
  if (fn === "quantile") {
    // The guard admits plain decimals only: no NaN and no −0, so the sorted order is `quantile`'s.
    const sorted = new SortedWindow(buckets.map((b) => b.values!));
    return (lo, hi) => sorted.quantile(plan.phi, lo, hi);
  }
  if (fn === "stdvar" || fn === "stddev") {
    const moments = buckets.map((b) => Moments.of(b.values!));
    return (lo, hi) => {
      const variance = Moments.merged(moments, lo, hi).variance();
      return fn === "stddev" ? Math.sqrt(variance) : variance;
    };
  }
  // Buckets of samples only, in time order: the window's first sample is in its first bucket.
  if (fn === "first") return (lo) => buckets[lo]!.value;
  if (fn === "last") return (_lo, hi) => buckets[hi - 1]!.value;
  const seconds = rangeSeconds(plan);
  return (lo, hi) => {
    let acc = fn === "min" ? Infinity : fn === "max" ? -Infinity : 0;
    let count = 0;
    for (let i = lo; i < hi; i++) {
      const b = buckets[i]!;
      if (fn === "min") acc = Math.min(acc, b.value);
      else if (fn === "max") acc = Math.max(acc, b.value);
      else acc += b.value;
      count += b.count;
    }
    return fn === "avg" ? acc / count : fn === "rate" ? acc / seconds : acc;
  };
}
