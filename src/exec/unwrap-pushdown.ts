/**
 * Runs a pushed-down unwrap plan (src/plan/unwrap-pushdown.ts): VictoriaLogs returns per (bucket,
 * group) the aggregate of the exactly-readable values (or, for a quantile, the values themselves),
 * their count, and how many rows it could not prove Loki reads the same way. Any such row anywhere
 * in the window means "evaluate locally" ("guarded"), as does a quantile bucket whose values the
 * origin did not all send ("incomplete"); otherwise each evaluation window combines its buckets.
 */
import type { Labels, Series } from "../engine/types";
import { quantileOfSorted } from "../engine/metric/range/functions";
import type { CachedOrigin } from "../cache/cached-origin";
import type { MetricGrid } from "../plan/metric-pushdown";
import type { UnwrapBucketPlan } from "../plan/unwrap-pushdown";
import type { ScanStats } from "./logs";
import { bucketRows, evaluationTimes, windowSpans } from "./metric-pushdown";
import { POINTS_PER_STATS_ROW, POINTS_PER_TEXT_ROW } from "../cache/extents";

interface Bucket {
  /** Inclusive bucket end, ns. */
  end: bigint;
  value: number;
  count: number;
  /** A quantile's bucket: its values, as Loki reads them. */
  values?: Float64Array;
}

export async function runUnwrapPlan(
  client: CachedOrigin,
  plan: UnwrapBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<Series[] | "guarded" | "incomplete"> {
  const quantiles = plan.fn === "quantile";
  // A quantile's `__v` is a list of values, a text of each row's own: such a row costs what an object does.
  const { table, ends, keys, labels } = await bucketRows(
    client,
    plan,
    grid,
    stats,
    maxPoints,
    quantiles ? ["__n", "__bad"] : ["__n", "__bad", "__v"],
    quantiles ? POINTS_PER_TEXT_ROW : POINTS_PER_STATS_ROW,
  );
  const groups = new Map<string, { labels: Labels; buckets: Bucket[] }>();
  for (let i = 0; i < table.length; i++) {
    if (table.value(i, 1) !== 0) return "guarded";
    const count = table.value(i, 0);
    // A bucket whose rows all lack the field yields no sample in Loki either.
    if (count === 0) continue;
    const gi = table.groupIndex(i);
    const end = ends[table.timeIndex(i)]!;
    let bucket: Bucket;
    if (quantiles) {
      const values = bucketValues(table.groups[gi]!.__v, count);
      // More values than `values … limit` sends: the origin's list is not the whole bucket.
      if (!values) return "incomplete";
      bucket = { end, value: 0, count, values };
    } else bucket = { end, value: table.value(i, 2), count };
    let g = groups.get(keys[gi]!);
    if (!g) groups.set(keys[gi]!, (g = { labels: labels[gi]!, buckets: [] }));
    g.buckets.push(bucket);
  }

  const times = evaluationTimes(grid);
  const out: Series[] = [];
  for (const g of groups.values()) {
    const buckets = g.buckets.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
    const ends = buckets.map((b) => b.end);
    const points: Series["points"] = [];
    const window = quantiles ? new SlidingSortedValues(buckets) : undefined;
    for (const { t, lo, hi } of windowSpans(ends, times, plan))
      points.push({
        t,
        v: window ? quantileOfSorted(plan.phi, window.span(lo, hi)) : combine(plan.fn, buckets, lo, hi),
      });
    if (points.length > 0) out.push({ labels: g.labels, points });
  }
  return out;
}

/**
 * A bucket's values from the JSON array of texts `values` sends, read as Loki's unwrap reads them
 * (every one is of the exact shape: the guard saw to it); undefined when the list is not all `count`
 * of them.
 */
function bucketValues(list: string | undefined, count: number): Float64Array | undefined {
  let texts: unknown;
  try {
    texts = JSON.parse(list ?? "");
  } catch {
    return undefined;
  }
  if (!Array.isArray(texts) || texts.length !== count) return undefined;
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = Number(texts[i]);
  return values;
}

/**
 * The values of a span of buckets, sorted, as the span slides forward (both ends only grow, as
 * windowSpans gives them): each bucket is sorted once, and a step merges in the buckets the span
 * gains and drops those it leaves, in one linear pass over the window. Gathering and sorting every
 * window's values afresh cost a sort of the whole window per evaluation time, which at Grafana's
 * steps (a window of 60 buckets moving by one) is most of a quantile's CPU.
 */
class SlidingSortedValues {
  /** The current span's values, sorted, in sorted[0 … length). */
  private sorted = new Float64Array(64);
  /** The buffer the next span is merged into; the two swap at each step. */
  private spare = new Float64Array(64);
  private length = 0;
  private lo = 0;
  private hi = 0;

  constructor(private readonly buckets: readonly Bucket[]) {
    // The guard admits plain decimals only: no NaN and no −0, the two values whose place the numeric
    // sort of a Float64Array (native, without a comparator called per pair) could give otherwise
    // than `quantile`'s order, and which equality could not match when a bucket leaves.
    for (const b of buckets) b.values!.sort();
  }

  /** The sorted values of buckets [lo, hi); cheapest when lo and hi are at least the last call's. */
  span(lo: number, hi: number): Float64Array {
    const slides = lo >= this.lo && hi >= this.hi && lo < this.hi;
    if (!slides || !this.slide(lo, hi)) this.rebuild(lo, hi);
    this.lo = lo;
    this.hi = hi;
    return this.sorted.subarray(0, this.length);
  }

  /** The span's values gathered and sorted from its buckets. */
  private rebuild(lo: number, hi: number): void {
    const values = this.gathered(lo, hi);
    values.sort();
    this.ensure(values.length);
    this.sorted.set(values);
    this.length = values.length;
  }

  /**
   * The current span without buckets [this.lo, lo) and with buckets [this.hi, hi), merged; false
   * when a leaving value is not found where its order puts it (left as it was: rebuild instead).
   */
  private slide(lo: number, hi: number): boolean {
    const gone = this.sortedValues(this.lo, lo);
    const added = this.sortedValues(this.hi, hi);
    if (gone.length === 0 && added.length === 0) return true;
    const n = this.length - gone.length + added.length;
    if (n < 0) return false;
    if (this.spare.length < n) this.spare = new Float64Array(capacityFor(n));
    const cur = this.sorted;
    const out = this.spare;
    let i = 0;
    let g = 0;
    let a = 0;
    let o = 0;
    while (i < this.length) {
      const v = cur[i]!;
      if (g < gone.length && v === gone[g]) {
        g++;
        i++;
        continue;
      }
      if (g < gone.length && v > gone[g]!) return false;
      while (a < added.length && added[a]! < v) out[o++] = added[a++]!;
      out[o++] = v;
      i++;
    }
    if (g !== gone.length) return false;
    while (a < added.length) out[o++] = added[a++]!;
    this.spare = cur;
    this.sorted = out;
    this.length = o;
    return true;
  }

  /** Buckets [lo, hi)'s values, sorted: one bucket's own list when the span moves by one bucket. */
  private sortedValues(lo: number, hi: number): Float64Array {
    if (hi - lo === 1) return this.buckets[lo]!.values!;
    return this.gathered(lo, hi).sort();
  }

  /** Buckets [lo, hi)'s values, unsorted across buckets. */
  private gathered(lo: number, hi: number): Float64Array {
    let n = 0;
    for (let i = lo; i < hi; i++) n += this.buckets[i]!.count;
    const values = new Float64Array(n);
    let at = 0;
    for (let i = lo; i < hi; i++) {
      values.set(this.buckets[i]!.values!, at);
      at += this.buckets[i]!.count;
    }
    return values;
  }

  private ensure(n: number): void {
    if (this.sorted.length < n) this.sorted = new Float64Array(capacityFor(n));
  }
}

const capacityFor = (n: number) => Math.max(64, 2 ** Math.ceil(Math.log2(n)));

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
