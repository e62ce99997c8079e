/**
 * Range aggregations (`count_over_time(...[5m])`, `quantile_over_time(...)`, ...): samples are
 * folded into every evaluation window they fall in as they arrive, in any order, so only
 * per-series, per-window state is kept; quantile and rate_counter keep (ts, value) pairs.
 */
import type { Grouping, RangeAggregationExpr } from "../../../logql/ast";
import type { ExtractedSample, Labels, VectorSample } from "../../types";
import { PipelineError, SERIES_LABEL_TEXT_BUDGET, SeriesLabelsLimitError } from "../errors";
import { type StepGrid, stepsCovering, timeAt } from "../grid";
import { compareLabels, groupLabels, isErrorSeries, labelsKey } from "../labels";
import { type FoldKind, WindowAcc, finishFold, foldKindOf } from "./accumulators";
import { counterRate, quantile } from "./functions";

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

/**
 * Evaluates one range aggregation over `samples`. `outerGrouping` is the grouping of an enclosing
 * aggregation that distributes over this one (`sum by (x) (count_over_time(...))`): applying it to
 * the samples first gives the same numbers with far fewer series, as Loki does at its source.
 */
export async function evaluateRangeAggregation(
  expr: RangeAggregationExpr,
  grid: StepGrid,
  samples: SampleStream,
  outerGrouping?: Grouping,
): Promise<StepVectors> {
  if (expr.op === "absent_over_time") return absentOverTime(expr, grid, samples);
  const kind = foldKindOf(expr.op, expr.range.unwrap !== undefined);
  return kind
    ? foldOverTime(expr, kind, grid, samples, outerGrouping)
    : pointsOverTime(expr, grid, samples, outerGrouping);
}

/** The label set a sample is aggregated under; error samples keep every label so the error surfaces. */
function seriesLabelsOf(sample: ExtractedSample, expr: RangeAggregationExpr, outer: Grouping | undefined): Labels {
  const labels = sample.labels;
  if (isErrorSeries(labels)) throw new PipelineError(labels);
  let out = labels;
  if (expr.grouping) out = groupLabels(out, expr.grouping);
  if (outer) out = groupLabels(out, outer);
  return out;
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
    private readonly expr: RangeAggregationExpr,
    private readonly outer: Grouping | undefined,
    private readonly create: (labels: Labels) => S,
  ) {}

  of(sample: ExtractedSample): S {
    if (sample.labels === this.lastLabels) return this.last!;
    const labels = seriesLabelsOf(sample, this.expr, this.outer);
    const key = labelsKey(labels);
    let s = this.all.get(key);
    if (!s) {
      this.labelText += key.length;
      if (this.labelText > SERIES_LABEL_TEXT_BUDGET) throw new SeriesLabelsLimitError();
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

async function foldOverTime(
  expr: RangeAggregationExpr,
  kind: FoldKind,
  grid: StepGrid,
  samples: SampleStream,
  outer: Grouping | undefined,
): Promise<StepVectors> {
  const w = windowOf(expr);
  const series = new SeriesTable<FoldSeries>(expr, outer, (labels) => ({ labels, windows: new Map() }));
  for await (const batch of samples)
    for (const sample of batch) {
      const covered = stepsCovering(grid, sample.ts, w.range, w.offset);
      if (!covered) continue;
      const s = series.of(sample);
      for (let k = covered[0]; k <= covered[1]; k++) {
        let acc = s.windows.get(k);
        if (!acc) {
          acc = new WindowAcc();
          s.windows.set(k, acc);
        }
        acc.add(kind, sample.ts, sample.value);
      }
    }
  const rangeSeconds = Number(w.range) / 1e9;
  const out = emptySteps(grid.count);
  for (const s of sortedSeries(series.all)) {
    for (const [k, acc] of s.windows)
      out[k]!.push({ labels: s.labels, v: finishFold(expr.op, kind, acc, rangeSeconds) });
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
  grid: StepGrid,
  samples: SampleStream,
  outer: Grouping | undefined,
): Promise<StepVectors> {
  const w = windowOf(expr);
  const series = new SeriesTable<PointSeries>(expr, outer, (labels) => ({ labels, ts: [], vs: [] }));
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
      s.ts.push(sample.ts);
      s.vs.push(sample.value);
    }
  const windowValue = pointsFunction(expr);
  const out = emptySteps(grid.count);
  for (const s of sortedSeries(series.all)) {
    const { ts, vs } = inTimeOrder(s);
    const n = ts.length;
    let lo = 0;
    let hi = 0;
    let k = stepsCovering(grid, ts[0]!, w.range, w.offset)![0];
    while (k < grid.count) {
      const end = timeAt(grid, k) - w.offset;
      const start = end - w.range;
      while (hi < n && ts[hi]! <= end) hi++;
      while (lo < hi && ts[lo]! <= start) lo++;
      if (hi > lo) {
        out[k]!.push({ labels: s.labels, v: windowValue(ts.slice(lo, hi), vs.slice(lo, hi), w.range) });
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

type PointsFunction = (ts: bigint[], vs: number[], range: bigint) => number;

function pointsFunction(expr: RangeAggregationExpr): PointsFunction {
  switch (expr.op) {
    case "quantile_over_time": {
      const phi = expr.param ?? NaN;
      return (_ts, vs) => quantile(phi, vs);
    }
    case "rate_counter":
      return (ts, vs, range) => counterRate(ts, vs, range);
    default:
      throw new Error(`range aggregation ${expr.op} has no point function`);
  }
}

/**
 * absent_over_time: 1 at every step where no sample of the selector falls in the window, under
 * the labels its equality matchers pin down (Loki drops a name matched any other way).
 */
async function absentOverTime(expr: RangeAggregationExpr, grid: StepGrid, samples: SampleStream): Promise<StepVectors> {
  const w = windowOf(expr);
  const coverage = new Int32Array(grid.count + 1);
  for await (const batch of samples)
    for (const sample of batch) {
      const covered = stepsCovering(grid, sample.ts, w.range, w.offset);
      if (!covered) continue;
      if (isErrorSeries(sample.labels)) throw new PipelineError(sample.labels);
      coverage[covered[0]]!++;
      coverage[covered[1] + 1]!--;
    }
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
