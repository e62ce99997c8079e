/**
 * How a metric query is computed, chosen once before any origin request: one strategy for the
 * whole query, whose exactness argument is made here and in the planner it rests on.
 *
 * - `pushed`: VictoriaLogs computes the whole query as counts or byte sums per (bucket, group)
 *   (plan/metric-pushdown.ts). Exact: without parsers a sample's labels are the fields VictoriaLogs
 *   groups by, and each Loki window is an exact union of buckets. Nothing can decline it.
 * - `guarded`: VictoriaLogs computes the whole unwrap aggregation, and in the SAME request counts
 *   the rows Loki might read differently (plan/unwrap-pushdown.ts). Exact when that count is zero;
 *   any such row makes the origin's answer void and the query is evaluated by `fallback`, from
 *   whole lines (the rows that voided it would void a projection too). The answer is all or
 *   nothing, so a range query asks once for its whole grid.
 * - `projected`: the Worker evaluates the query; the range aggregations in `projections` read one
 *   small row per sample (plan/unwrap-projection.ts) while a guard request over the same window
 *   looks for a row Loki might read differently. Exact when the guard finds none; when it finds
 *   one, the evaluation's samples are void and it is evaluated again by `fallback`.
 * - `local`: the Worker evaluates the query from whole lines, with Loki's semantics. Exact by
 *   construction. Subtrees the origin computes on a given grid (`pushParts`) are still asked of it
 *   through `planPart`, each exact by the argument of its kind above, or `parsed`: a counting
 *   metric over `| json` / `| logfmt` that VictoriaLogs unpacks, filters and counts, with a
 *   same-request guard count (plan/parser-pushdown.ts; `| regexp` / `| pattern` through
 *   `extract_regexp`, plan/extract-pushdown.ts); when the guard finds a row, that subtree
 *   is evaluated from whole lines, and the query's other chunks do not ask the origin again; or
 *   `levels`: a counting metric grouped by `detected_level`, counted by VictoriaLogs per group of
 *   the raw inputs of Loki's level rules, which the Worker applies per group
 *   (plan/level-pushdown.ts); a group whose inputs do not settle the level declines it likewise; or
 *   `series`: a counting metric without parsers whose series the evaluator needs (a bare one, one
 *   under `avg by`, `max by`, `topk`, …, or `sum by` a derived label), counted by VictoriaLogs per
 *   group of rows sharing every input of their labels, which the Worker makes per group
 *   (plan/series-pushdown.ts); a group whose level is not settled declines it likewise.
 *
 * Worker evaluations of range queries go through the series cache chunk by chunk (`seriesCache`);
 * a query pushed whole is cached as its buckets instead (cache/extents.ts), shared with panels of
 * other functions over the same selector.
 */
import type { RangeAggregationExpr, SampleExpr } from "../logql/ast";
import { SKIP, walk } from "../logql/walk";
import { BUCKET_VALUES } from "../logql/functions";
import type { DerivedFieldRules } from "../engine/derived-fields";
import { planMetricPushdown, type BucketPlan, type MetricGrid } from "./metric-pushdown";
import { parsedLabelValues, planParserPushdown, type ParserBucketPlan } from "./parser-pushdown";
import { planExtractPushdown } from "./extract-pushdown";
import { planLevelPushdown, type LevelBucketPlan } from "./level-pushdown";
import { planSeriesPushdown, type SeriesBucketPlan } from "./series-pushdown";
import { extractedUnwrapSource } from "./unwrap-extract";
import { planUnwrapPushdown, type UnwrapBucketPlan } from "./unwrap-pushdown";
import { planUnwrapProjection, type UnwrapProjection } from "./unwrap-projection";

/** A Worker evaluation: the query's nodes are evaluated locally unless a part is pushed. */
export interface WorkerEvaluation {
  /** Whether subtrees are offered to the origin (`planPart`, per evaluation grid). */
  pushParts: boolean;
  /** Whether a range query is evaluated through the series cache. */
  seriesCache: boolean;
  /** The whole query's push-down on the query's grid, planned with the strategy (a quantile's, an instant query's). */
  whole?: PartPlan;
}

export type LocalStrategy = { kind: "local" } & WorkerEvaluation;

export type MetricStrategy =
  | { kind: "pushed"; plan: BucketPlan }
  | { kind: "guarded"; plan: UnwrapBucketPlan; fallback: LocalStrategy }
  | ({
      kind: "projected";
      projections: ReadonlyMap<RangeAggregationExpr, UnwrapProjection>;
      fallback: LocalStrategy;
    } & WorkerEvaluation)
  | LocalStrategy;

/** A subtree the origin computes on one grid during a Worker evaluation. */
export type PartPlan =
  | { kind: "pushed"; plan: BucketPlan }
  | { kind: "guarded"; plan: UnwrapBucketPlan }
  | { kind: "parsed"; plan: ParserBucketPlan }
  | { kind: "levels"; plan: LevelBucketPlan }
  | { kind: "series"; plan: SeriesBucketPlan };

export interface StrategyOptions {
  /** Let VictoriaLogs compute what it computes exactly (`pushdown`, default on). */
  pushdown: boolean;
  derived?: DerivedFieldRules;
}

/** `grid` is the query's, aligned to its step as the evaluator aligns it. */
export function planMetricStrategy(expr: SampleExpr, grid: MetricGrid, opts: StrategyOptions): MetricStrategy {
  const aggregations = rangeAggregations(expr);
  const seriesCache = !grid.instant && aggregations.length > 0;
  if (!opts.pushdown) return { kind: "local", pushParts: false, seriesCache };
  const whole = planPart(expr, grid, opts.derived);
  if (whole?.kind === "pushed") return whole;
  // A quantile's or a variance's buckets hold their values: a range query asks for them chunk by
  // chunk, as a part, so that its series are cached once evaluated.
  if (whole?.kind === "guarded" && !grid.instant && !BUCKET_VALUES.has(whole.plan.fn)) {
    // The shapes pushed whole hold no subtree the origin could compute on its own.
    return { kind: "guarded", plan: whole.plan, fallback: { kind: "local", pushParts: false, seriesCache } };
  }
  const local: LocalStrategy = { kind: "local", pushParts: true, seriesCache, ...(whole && { whole }) };
  const projections = new Map<RangeAggregationExpr, UnwrapProjection>();
  for (const agg of aggregations) {
    const projection = planUnwrapProjection(agg, opts.derived);
    if (projection) projections.set(agg, projection);
  }
  if (projections.size === 0) return local;
  return { ...local, kind: "projected", projections, fallback: local };
}

/** The push-down of one subtree on one grid, if the origin computes it exactly. */
export function planPart(sub: SampleExpr, grid: MetricGrid, derived?: DerivedFieldRules): PartPlan | undefined {
  const buckets = planMetricPushdown(sub, grid, derived);
  if (buckets) return { kind: "pushed", plan: buckets };
  const parsed = planParserPushdown(sub, grid, derived) ?? planExtractPushdown(sub, grid, derived);
  if (parsed) return { kind: "parsed", plan: parsed };
  const levels = planLevelPushdown(sub, grid, derived);
  if (levels) return { kind: "levels", plan: levels };
  const series = planSeriesPushdown(sub, grid, derived);
  if (series) return { kind: "series", plan: series };
  const unwrap = planUnwrapPushdown(sub, grid, derived, parsedLabelValues, extractedUnwrapSource);
  return unwrap && { kind: "guarded", plan: unwrap };
}

/** The range aggregations an expression reads, in order (none: a literal or `vector()` answer). */
function rangeAggregations(expr: SampleExpr): RangeAggregationExpr[] {
  const found: RangeAggregationExpr[] = [];
  walk(expr, {
    RangeAggregation: (node) => {
      found.push(node);
      return SKIP;
    },
  });
  return found;
}
