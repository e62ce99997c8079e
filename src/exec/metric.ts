/**
 * Executes a LogQL metric query: the metric evaluator asks for the samples of each range
 * aggregation; this module fetches the rows from the origin (selector and line filters pushed down,
 * sub-windows in parallel) and extracts samples as they stream, never holding the rows.
 */
import type { RangeAggregationExpr, SampleExpr } from "../logql/ast";
import type { ExtractedSample, MetricResult } from "../engine/types";
import { compileSampleExtractor } from "../engine/pipeline";
import {
  QueryLimitError,
  SeriesLimit,
  alignToStep,
  evaluateMetric,
  partialSeriesWarning,
  type MetricOptions,
  type MetricQuery,
  type SampleSource,
} from "../engine/metric";
import { astKey } from "../logql/ast-key";
import { planLogQuery } from "../plan/logquery";
import type { OriginClient } from "../origin/client";
import type { CachedOrigin } from "../cache/cached-origin";
import type { ScanStats } from "./logs";
import { splitWindows } from "./windows";
import { lineLength } from "../engine/literal-row";
import { mergeConcurrent } from "./merge";
import { planMetricPushdown } from "../plan/metric-pushdown";
import { metricNeedsDerived } from "../plan/derived-use";
import { derivedNames } from "../engine/derived-fields";
import { runBucketPlan } from "./metric-pushdown";
import { restrictToGroups } from "./breakdown-groups";
import { planUnwrapPushdown } from "../plan/unwrap-pushdown";
import { runUnwrapPlan } from "./unwrap-pushdown";
import { planUnwrapProjection } from "../plan/unwrap-projection";
import { ProjectionRefused, projectedSamples, projectionGuard } from "./unwrap-projection";

export interface MetricQueryOptions {
  splitInterval: bigint;
  maxConcurrency: number;
  maxSeries: number;
  /**
   * Past `maxSeries`, a partial answer with Loki's warning instead of the 400: Loki grants it to
   * Logs Drilldown (`X-Query-Tags: Source=grafana-lokiexplore-app`).
   */
  partialSeries?: boolean;
  /** How many points one evaluation may hold (`MAX_METRIC_POINTS`). */
  maxPoints?: number;
  /** Let VictoriaLogs compute the subtrees it computes exactly (default on). */
  pushdown?: boolean;
}

export async function executeMetricQuery(
  client: CachedOrigin,
  expr: SampleExpr,
  q: MetricQuery,
  opts: MetricQueryOptions,
): Promise<{ result: MetricResult; stats: ScanStats }> {
  const cut = { groups: false };
  const answer = await evaluateQuery(client, expr, q, opts, cut);
  // The origin computed only some of the answer's groups: the answer is partial, as Loki says it.
  if (cut.groups && !answer.result.warnings) answer.result.warnings = [partialSeriesWarning(opts.maxSeries)];
  return answer;
}

async function evaluateQuery(
  client: CachedOrigin,
  expr: SampleExpr,
  q: MetricQuery,
  opts: MetricQueryOptions,
  cut: { groups: boolean },
): Promise<{ result: MetricResult; stats: ScanStats }> {
  const stats: ScanStats = { rowsScanned: 0, bytesScanned: 0, subqueries: 0 };
  // Rows get the derived fields only when the answer can depend on them.
  const derive = metricNeedsDerived(expr, derivedNames(client.derivedFields));
  // Projected unwrap samples until a guard refuses them for this query (see unwrap-projection.ts).
  let project = opts.pushdown === true;
  // While set, an unwrap push-down of the whole expression that the origin declines throws
  // UnwrapDeclined instead of falling back, so that the local evaluation gets the series cache.
  let wholeUnwrapFirst = false;
  let wholeUnwrapDeclined = false;
  const source: SampleSource = {
    samples(agg: RangeAggregationExpr, from: bigint, to: bigint): AsyncIterable<readonly ExtractedSample[]> {
      return rangeSamples(client, agg, from, to, opts, stats, derive, project);
    },
    async pushdown(sub: SampleExpr, grid: MetricQuery) {
      if (!opts.pushdown) return undefined;
      const plan = planMetricPushdown(sub, grid, client.derivedFields);
      if (plan && opts.partialSeries && sub === expr) {
        // The answer's groups are the plan's: past the limit, the origin computes only `maxSeries` of them.
        const only = await restrictToGroups(client, plan, opts.maxSeries, stats);
        if (only) {
          cut.groups = true;
          return runBucketPlan(client, only, grid, stats, opts.maxPoints);
        }
      }
      if (plan) return runBucketPlan(client, plan, grid, stats, opts.maxPoints);
      // Declined once for this query: asking again per chunk would only be declined again.
      if (wholeUnwrapDeclined && sub === expr) return undefined;
      const unwrapPlan = planUnwrapPushdown(sub, grid, client.derivedFields);
      if (!unwrapPlan) return undefined;
      const outcome = await runUnwrapPlan(client, unwrapPlan, grid, stats, opts.maxPoints);
      // The rows that made the origin's guard count would make the projection's guard refuse too.
      if (outcome === "guarded") project = false;
      if (typeof outcome !== "string") return outcome;
      if (wholeUnwrapFirst && sub === expr) throw new UnwrapDeclined();
      return undefined;
    },
  };
  const strict: MetricOptions = { maxSeries: opts.maxSeries, maxPoints: opts.maxPoints };
  const asked: MetricOptions = { ...strict, partialSeries: opts.partialSeries === true };
  const evaluate = async (sub: MetricQuery, limits = asked) => {
    try {
      return await evaluateMetric(expr, sub, source, limits);
    } catch (err) {
      if (!(err instanceof ProjectionRefused)) throw err;
      project = false;
      return await evaluateMetric(expr, sub, source, limits);
    }
  };
  const aligned = alignToStep(q);
  // A query the origin computes whole is cached as its buckets (cache/extents.ts), which panels with
  // other functions of the same selector share; its final series need no second layer.
  const wholePushed = opts.pushdown && planMetricPushdown(expr, aligned, client.derivedFields) !== undefined;
  // So is an unwrap aggregation the origin computes whole, as long as it does not decline: its
  // buckets are a number each. A quantile's buckets hold their values, which are worth evaluating
  // once: it keeps its series cache.
  const wholeUnwrap = opts.pushdown && !q.instant ? planUnwrapPushdown(expr, aligned, client.derivedFields) : undefined;
  if (wholeUnwrap && wholeUnwrap.fn !== "quantile") {
    wholeUnwrapFirst = true;
    try {
      return { result: await evaluate(q), stats };
    } catch (err) {
      if (!(err instanceof UnwrapDeclined)) throw err;
      wholeUnwrapDeclined = true;
    } finally {
      wholeUnwrapFirst = false;
    }
  }
  if (!q.instant && readsLogs(expr) && !wholePushed) {
    const limit = new SeriesLimit(opts.maxSeries, opts.partialSeries === true);
    try {
      // Chunks are evaluated whole (strict limit) so that none is stored cut; the join may cut.
      const series = await client.metricChunks.matrix(astKey(expr), aligned, limit, async (sub) => {
        const r = await evaluate(sub, strict);
        return r.type === "matrix" ? r.series : [];
      });
      if (series) {
        const warnings = limit.reached ? { warnings: [partialSeriesWarning(limit.max)] } : {};
        return { result: { type: "matrix", series, ...warnings }, stats };
      }
    } catch (err) {
      // A chunk past the limit: a partial answer is evaluated once more, cut as it is read, and
      // not stored (a chunk cut to some series would be wrong for every other request).
      if (!(err instanceof QueryLimitError) || !opts.partialSeries) throw err;
    }
  }
  return { result: await evaluate(q), stats };
}

/** The origin declined to compute the whole expression (see executeMetricQuery). */
class UnwrapDeclined extends Error {}

/** Whether the expression reads log lines at all (a literal or `vector()` answer costs nothing to compute). */
function readsLogs(expr: SampleExpr): boolean {
  switch (expr.kind) {
    case "RangeAggregation":
      return true;
    case "VectorAggregation":
    case "LabelReplace":
      return readsLogs(expr.expr);
    case "BinaryOp":
      return readsLogs(expr.lhs) || readsLogs(expr.rhs);
    default:
      return false;
  }
}

/** The split interval of projected unwrap samples (see rangeSamples). */
const PROJECTED_SPLIT = 24n * 3_600_000_000_000n;

/** Samples with ts in (from, to]: the origin window is [from + 1ns, to + 1ns). */
export function rangeSamples(
  client: OriginClient,
  agg: RangeAggregationExpr,
  from: bigint,
  to: bigint,
  opts: MetricQueryOptions,
  stats: ScanStats,
  derive: boolean,
  project: boolean,
): AsyncIterable<readonly ExtractedSample[]> {
  const range = { start: from + 1n, end: to + 1n };
  const projection = project ? planUnwrapProjection(agg, client.derivedFields) : undefined;
  if (projection) {
    stats.subqueries++;
    const guard = projectionGuard(client, projection, range);
    // Projected rows are a few fields each: a day per request costs the origin less than one request
    // per split interval (a 6 h quantile: 107 → 73 ms median locally), and still bounds each request.
    const split = opts.splitInterval > PROJECTED_SPLIT ? opts.splitInterval : PROJECTED_SPLIT;
    const perWindow = splitWindows(range, split, false, client.budget.windowShare()).map(
      (w) => (signal: AbortSignal) => {
        stats.subqueries++;
        return projectedSamples(client.withSignal(signal), projection, w, stats, guard);
      },
    );
    return mergeConcurrent(perWindow, opts.maxConcurrency);
  }
  // Within the request's share of origin requests: a wider window gives the same samples.
  const windows = splitWindows(range, opts.splitInterval, false, client.budget.windowShare());
  const plan = planLogQuery(agg.range.selector, { prefilter: opts.pushdown, derived: client.derivedFields });
  const extractor = compileSampleExtractor(
    { ...agg.range, selector: { ...agg.range.selector, pipeline: plan.local } },
    agg.op,
    agg.grouping && !agg.grouping.without ? agg.grouping.labels : undefined,
  );
  const perWindow = windows.map(
    (w) =>
      async function* (signal: AbortSignal): AsyncGenerator<ExtractedSample[]> {
        stats.subqueries++;
        for await (const batch of client.withSignal(signal).logRows(plan.logsql, w, { derive })) {
          const samples: ExtractedSample[] = [];
          for (const row of batch) {
            stats.rowsScanned++;
            stats.bytesScanned += lineLength(row);
            const sample = extractor.process(row);
            if (sample) samples.push(sample);
          }
          if (samples.length > 0) yield samples;
        }
      },
  );
  return mergeConcurrent(perWindow, opts.maxConcurrency);
}
