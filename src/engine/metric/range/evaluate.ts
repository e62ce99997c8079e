/**
 * Range aggregations (`count_over_time(...[5m])`, `quantile_over_time(...)`, ...): samples are
 * folded into every evaluation window they fall in as they arrive, in any order, so only
 * per-series, per-window state is kept; quantile and rate_counter keep (ts, value) pairs.
 *
 * What is held is bounded while it grows, not after: the series table refuses its series past
 * Loki's `max_query_series` when its series are the query's answer (or, for a partial answer,
 * leaves their samples out: the series it keeps stay exact), and every series,
 * window accumulator and kept sample is counted against the evaluation's PointBudget, so a query
 * stops reading rows the moment it would hold too much.
 */
import type { Grouping, RangeAggregationExpr } from "../../../logql/ast";
import type { ExtractedSample, Labels, VectorSample } from "../../types";
import type { PointBudget } from "../budget";
import { PipelineError, SERIES_LABEL_TEXT_BUDGET, SeriesLabelsLimitError } from "../errors";
import type { SeriesLimit } from "../series-limit";
import { type StepGrid, stepsCovering, timeAt } from "../grid";
import { compareLabels, groupLabels, isErrorSeries, labelsKey } from "../labels";
import { WindowAcc } from "./accumulators";
import { RANGE_IMPLEMENTATIONS, type RangeImplementation } from "./implementations";

/** One vector per evaluation step, in grid order. */
export type StepVectors = VectorSample[][];

/** Samples in batches (see SampleSource). */
export type SampleStream = AsyncIterable<readonly ExtractedSample[]> | Iterable<readonly ExtractedSample[]>;

interface Window {
  range: bigint;
  offset: bigint;
}

function windowOf(expr: RangeAggregationExpr): Window {
  return { range: BigInt(Math.round(expr.range.range)), offset: BigInt(Math.round(expr.range.offset)) };
}

/** The sample time span the source must deliver: ts in (from, to]. */
export function sampleSpan(expr: RangeAggregationExpr, grid: StepGrid): { from: bigint; to: bigint } {
  const w = windowOf(expr);
  const last = timeAt(grid, Math.max(grid.count - 1, 0));
  return { from: grid.start - w.offset - w.range, to: last - w.offset };
}

/** Bounds on what one range aggregation may hold. */
export interface RangeLimits {
  /**
   * Set when this aggregation's series are the query's answer series (it is the query, or an
   * aggregation folded into it): Loki's `max_query_series`, strict or partial.
   */
  series?: SeriesLimit;
  budget: PointBudget;
}

/**
 * Evaluates one range aggregation over `samples`. `outerGrouping` is the grouping of an enclosing
 * aggregation that distributes over this one (`sum by (x) (count_over_time(...))`): applying it to
 * the samples first gives the same numbers with far fewer series, as Loki does at its source.
 */
export async function evaluateRangeAggregation(
  expr: RangeAggregationExpr,
  grid: StepGrid,
  samples: SampleStream,
  limits: RangeLimits,
  outerGrouping?: Grouping,
): Promise<StepVectors> {
  const impl: RangeImplementation = RANGE_IMPLEMENTATIONS[expr.op];
  switch (impl.kind) {
    case "fold":
      return foldOverTime(expr, impl, grid, samples, limits, outerGrouping);
    case "points":
      return pointsOverTime(expr, impl, grid, samples, limits, outerGrouping);
    case "absent":
      return absentOverTime(expr, grid, samples);
  }
}

type FoldImplementation = Extract<RangeImplementation, { kind: "fold" }>;
type PointsImplementation = Extract<RangeImplementation, { kind: "points" }>;

/** The label set a sample is aggregated under (never one with `__error__`: see PipelineErrors). */
function seriesLabelsOf(labels: Labels, expr: RangeAggregationExpr, outer: Grouping | undefined): Labels {
  let out = labels;
  if (expr.grouping) out = groupLabels(out, expr.grouping);
  if (outer) out = groupLabels(out, outer);
  return out;
}

/**
 * The pipeline error a range aggregation fails with. Loki fails at the first step whose window
 * holds a series with `__error__` and names one such series of that step, in its map's order.
 * Rows reach the Worker in no fixed order (sub-windows read in parallel, rows read back after a
 * push-down), so the first error row read would name a different series from one run or path to
 * the next: the error named is the earliest step's least label set, whichever order rows come in.
 */
class PipelineErrors {
  private step = Infinity;
  private labels: Labels | undefined;

  constructor(private readonly firstStep: (ts: bigint) => number | undefined) {}

  /** Notes the sample when it carries `__error__`; true when it does (it joins no series). */
  noted(sample: ExtractedSample): boolean {
    if (!isErrorSeries(sample.labels)) return false;
    const step = this.firstStep(sample.ts) ?? Infinity;
    if (step < this.step || (step === this.step && this.labels && compareLabels(sample.labels, this.labels) < 0)) {
      this.step = step;
      this.labels = sample.labels;
    } else if (!this.labels) this.labels = sample.labels;
    return true;
  }

  /** Throws Loki's pipeline error when some sample carried `__error__`. */
  check(): void {
    if (this.labels) throw new PipelineError(this.labels);
  }
}

function pipelineErrors(grid: StepGrid, w: Window): PipelineErrors {
  return new PipelineErrors((ts) => stepsCovering(grid, ts, w.range, w.offset)?.[0]);
}

/**
 * Series by label set. The series of the last sample's labels object is remembered: samples of one
 * group or stream share that object (label objects are never changed once a sample carries them),
 * so most samples cost neither a grouping nor a key.
 */
class SeriesTable<S> {
  readonly all = new Map<string, S>();
  private lastLabels: Labels | undefined;
  private last: S | undefined;
  /** Characters of the series' label sets (their keys), against SERIES_LABEL_TEXT_BUDGET. */
  private labelText = 0;

  constructor(
    /** Samples with `__error__`, which join no series. */
    readonly errors: PipelineErrors,
    private readonly expr: RangeAggregationExpr,
    private readonly outer: Grouping | undefined,
    private readonly limits: RangeLimits,
    private readonly create: (labels: Labels) => S,
  ) {}

  /** The sample's series; undefined when a partial answer leaves that series out. */
  of(sample: ExtractedSample): S | undefined {
    if (sample.labels === this.lastLabels) return this.last;
    if (this.errors.noted(sample)) return undefined;
    const labels = seriesLabelsOf(sample.labels, this.expr, this.outer);
    const key = labelsKey(labels);
    let s = this.all.get(key);
    if (!s) {
      // Every series of the table has a sample in some window, so each one is an answer series.
      const limit = this.limits.series;
      if (limit !== undefined && this.all.size >= limit.max && !limit.refuse()) {
        this.lastLabels = sample.labels;
        this.last = undefined;
        return undefined;
      }
      this.labelText += key.length;
      if (this.labelText > SERIES_LABEL_TEXT_BUDGET) throw new SeriesLabelsLimitError();
      this.limits.budget.take();
      this.all.set(key, (s = this.create(labels)));
    }
    this.lastLabels = sample.labels;
    this.last = s;
    return s;
  }
}

interface FoldSeries {
  labels: Labels;
  windows: Map<number, WindowAcc>;
}

/** A count or a sum needs one number per window, not an accumulator object: a third of the heap. */
interface TallySeries {
  labels: Labels;
  windows: Map<number, number>;
}

async function foldOverTime(
  expr: RangeAggregationExpr,
  impl: FoldImplementation,
  grid: StepGrid,
  samples: SampleStream,
  limits: RangeLimits,
  outer: Grouping | undefined,
): Promise<StepVectors> {
  const kind = impl.fold(expr.range.unwrap !== undefined);
  if (kind === "count" || kind === "sum") return tallyOverTime(expr, impl, kind, grid, samples, limits, outer);
  const w = windowOf(expr);
  const budget = limits.budget;
  const series = new SeriesTable<FoldSeries>(pipelineErrors(grid, w), expr, outer, limits, (labels) => ({
    labels,
    windows: new Map(),
  }));
  for await (const batch of samples)
    for (const sample of batch) {
      const covered = stepsCovering(grid, sample.ts, w.range, w.offset);
      if (!covered) continue;
      const s = series.of(sample);
      if (!s) continue;
      for (let k = covered[0]; k <= covered[1]; k++) {
        let acc = s.windows.get(k);
        if (!acc) {
          budget.take();
          acc = new WindowAcc();
          s.windows.set(k, acc);
        }
        acc.add(kind, sample.ts, sample.value);
      }
    }
  series.errors.check();
  const rangeSeconds = Number(w.range) / 1e9;
  const out = emptySteps(grid.count);
  for (const s of sortedSeries(series.all)) {
    for (const [k, acc] of s.windows) out[k]!.push({ labels: s.labels, v: impl.finish(acc, kind, rangeSeconds) });
    // The answer now holds the values: the accumulators can go while the next series is written.
    s.windows.clear();
  }
  return out;
}

/** foldOverTime for counts and sums: the same additions, in the same order, on a bare number. */
async function tallyOverTime(
  expr: RangeAggregationExpr,
  impl: FoldImplementation,
  kind: "count" | "sum",
  grid: StepGrid,
  samples: SampleStream,
  limits: RangeLimits,
  outer: Grouping | undefined,
): Promise<StepVectors> {
  const w = windowOf(expr);
  const budget = limits.budget;
  const counting = kind === "count";
  const series = new SeriesTable<TallySeries>(pipelineErrors(grid, w), expr, outer, limits, (labels) => ({
    labels,
    windows: new Map(),
  }));
  for await (const batch of samples)
    for (const sample of batch) {
      const covered = stepsCovering(grid, sample.ts, w.range, w.offset);
      if (!covered) continue;
      const s = series.of(sample);
      if (!s) continue;
      const add = counting ? 1 : sample.value;
      for (let k = covered[0]; k <= covered[1]; k++) {
        const tally = s.windows.get(k);
        if (tally === undefined) {
          budget.take();
          s.windows.set(k, 0 + add);
        } else s.windows.set(k, tally + add);
      }
    }
  series.errors.check();
  const rangeSeconds = Number(w.range) / 1e9;
  const out = emptySteps(grid.count);
  const acc = new WindowAcc();
  for (const s of sortedSeries(series.all)) {
    for (const [k, tally] of s.windows) {
      if (counting) acc.n = tally;
      else acc.x = tally;
      out[k]!.push({ labels: s.labels, v: impl.finish(acc, kind, rangeSeconds) });
    }
    s.windows.clear();
  }
  return out;
}

interface PointSeries {
  labels: Labels;
  ts: bigint[];
  vs: number[];
}

async function pointsOverTime(
  expr: RangeAggregationExpr,
  impl: PointsImplementation,
  grid: StepGrid,
  samples: SampleStream,
  limits: RangeLimits,
  outer: Grouping | undefined,
): Promise<StepVectors> {
  const w = windowOf(expr);
  const budget = limits.budget;
  const series = new SeriesTable<PointSeries>(pipelineErrors(grid, w), expr, outer, limits, (labels) => ({
    labels,
    ts: [],
    vs: [],
  }));
  // When windows overlap or touch (range ≥ step), the samples some window holds are one interval.
  const { from: first, to: last } = sampleSpan(expr, grid);
  const contiguous = grid.count > 0 && w.range >= grid.step;
  for await (const batch of samples)
    for (const sample of batch) {
      const covered = contiguous
        ? sample.ts > first && sample.ts <= last
        : stepsCovering(grid, sample.ts, w.range, w.offset) !== undefined;
      if (!covered) continue;
      const s = series.of(sample);
      if (!s) continue;
      budget.take();
      s.ts.push(sample.ts);
      s.vs.push(sample.value);
    }
  series.errors.check();
  const out = emptySteps(grid.count);
  for (const s of sortedSeries(series.all)) {
    const { ts, vs } = inTimeOrder(s);
    s.ts = [];
    s.vs = [];
    const windows = impl.window(expr, ts, vs, w.range);
    const n = ts.length;
    let lo = 0;
    let hi = 0;
    let k = stepsCovering(grid, ts[0]!, w.range, w.offset)![0];
    while (k < grid.count) {
      const end = timeAt(grid, k) - w.offset;
      const start = end - w.range;
      // The window moves forward only: each point enters once and leaves once.
      while (hi < n && ts[hi]! <= end) windows.enter(hi++);
      while (lo < hi && ts[lo]! <= start) windows.leave(lo++);
      if (hi > lo) {
        out[k]!.push({ labels: s.labels, v: windows.value(lo, hi) });
        k++;
        continue;
      }
      if (hi >= n) break;
      // Empty window: jump to the first step that sees the next point.
      k = Math.max(k + 1, stepsCovering(grid, ts[hi]!, w.range, w.offset)![0]);
    }
  }
  return out;
}

/** The series' points by time (equal times in arrival order); as they are when they came so. */
function inTimeOrder(s: PointSeries): { ts: bigint[]; vs: number[] } {
  let ordered = true;
  for (let i = 1; i < s.ts.length && ordered; i++) ordered = s.ts[i - 1]! <= s.ts[i]!;
  if (ordered) return s;
  const order = s.ts.map((_, i) => i).sort((a, b) => (s.ts[a]! < s.ts[b]! ? -1 : s.ts[a]! > s.ts[b]! ? 1 : a - b));
  return { ts: order.map((i) => s.ts[i]!), vs: order.map((i) => s.vs[i]!) };
}

/**
 * absent_over_time: 1 at every step where no sample of the selector falls in the window, under
 * the labels its equality matchers pin down (Loki drops a name matched any other way).
 */
async function absentOverTime(expr: RangeAggregationExpr, grid: StepGrid, samples: SampleStream): Promise<StepVectors> {
  const w = windowOf(expr);
  const errors = pipelineErrors(grid, w);
  const coverage = new Int32Array(grid.count + 1);
  for await (const batch of samples)
    for (const sample of batch) {
      const covered = stepsCovering(grid, sample.ts, w.range, w.offset);
      if (!covered) continue;
      if (errors.noted(sample)) continue;
      coverage[covered[0]]!++;
      coverage[covered[1] + 1]!--;
    }
  errors.check();
  const labels = absentLabels(expr);
  const out = emptySteps(grid.count);
  let present = 0;
  for (let k = 0; k < grid.count; k++) {
    present += coverage[k]!;
    if (present === 0) out[k]!.push({ labels: { ...labels }, v: 1 });
  }
  return out;
}

export function absentLabels(expr: RangeAggregationExpr): Labels {
  const labels: Labels = {};
  const dropped: string[] = [];
  for (const m of expr.range.selector.matchers) {
    if (m.name === "__name__") continue;
    if (m.op === "=" && labels[m.name] === undefined) labels[m.name] = m.value;
    else dropped.push(m.name);
  }
  for (const name of dropped) delete labels[name];
  return labels;
}

function emptySteps(count: number): StepVectors {
  return Array.from({ length: count }, () => []);
}

function sortedSeries<T extends { labels: Labels }>(series: Map<string, T>): T[] {
  return [...series.values()].sort((a, b) => compareLabels(a.labels, b.labels));
}
